// Public surface of the Twilio channel for the relay's composition root and the `send` command.
export { createTwilioChannel, type TwilioChannel, type TwilioChannelDeps } from './channel.js';
export { type DirectSendOptions, type DirectSendResult, sendTwilioDirect } from './direct.js';
export { outcomeOf } from './status.js';
export { type Delivery, twilioMigration } from './store.js';

// The ids under which the heartbeat's and the schedules' state is stored (store/job-states.ts):
// the heartbeat's job id is "heartbeat", a schedule's is "schedule:<id>".
export const HEARTBEAT_JOB = 'heartbeat';
export const scheduleJob = (id: string): string => `schedule:${id}`;

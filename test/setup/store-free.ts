export const STORE_FREE: string[] = [];

// A promise's outcome, or `otherwise` once `ms` passed first; the timer is cleared either way, so
// a settled race leaves nothing to hold the process.

export async function orAfter<T, U>(p: Promise<T>, ms: number, otherwise: U): Promise<T | U> {
  let timer: NodeJS.Timeout | undefined;
  const after = new Promise<U>((resolve) => {
    timer = setTimeout(() => resolve(otherwise), ms);
  });
  try {
    return await Promise.race([p, after]);
  } finally {
    clearTimeout(timer);
  }
}

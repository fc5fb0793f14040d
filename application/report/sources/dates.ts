/** Whole years from an ISO day (YYYY-MM-DD) to `now`, as an age is counted. */
export function yearsBetween(from: string, now: Date): number | null {
  const start = new Date(`${from.slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(start.getTime())) return null;
  let years = now.getUTCFullYear() - start.getUTCFullYear();
  const before = now.getUTCMonth() < start.getUTCMonth() || (now.getUTCMonth() === start.getUTCMonth() && now.getUTCDate() < start.getUTCDate());
  if (before) years--;
  return years;
}

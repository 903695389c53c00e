/** How long a step took, the same in every rendering: `850 ms`, `2.4 s`, `3 min 05 s`, `1 h 02 min`. */
export function formatDuration(ms: number): string {
  const t = Math.max(0, ms);
  if (t < 1000) return `${Math.round(t)} ms`;
  if (t < 60_000) return `${(t / 1000).toFixed(t < 10_000 ? 2 : 1)} s`;
  const s = Math.round(t / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  const m = Math.round(s / 60);
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

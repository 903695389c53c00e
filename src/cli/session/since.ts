/**
 * --since: how far back a command looks. A duration back from now (`90s`,
 * `30m`, `2h`, `3d`, `1w`), or a date (`2026-11-30`, local midnight) or time
 * (`2026-11-30T14:00` local, or RFC 3339 with `Z` or an offset).
 */
import { LogbookError } from '../../core/index.js';

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };
const DURATION = /^(\d+)\s*([smhdw])$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** The moment `text` names, `now` being the present; `usage` when it names none. */
export function parseSince(text: string, now: Date): Date {
  const given = text.trim();
  const duration = DURATION.exec(given);
  if (duration !== null) return new Date(now.getTime() - Number(duration[1]) * UNIT_MS[duration[2]!]!);
  const date = DATE.exec(given);
  if (date !== null) {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])];
    const day = new Date(y, m - 1, d);
    if (day.getFullYear() === y && day.getMonth() === m - 1 && day.getDate() === d) return day;
  } else if (TIME.test(given)) {
    const time = new Date(given.replace(' ', 'T'));
    if (!Number.isNaN(time.getTime())) return time;
  }
  throw new LogbookError(
    'usage',
    `--since ${JSON.stringify(text)} is neither a duration (90s, 30m, 2h, 3d, 1w) nor a date or time (2026-11-30, 2026-11-30T14:00, RFC 3339)`,
  );
}

/**
 * Puts directory `next` in `target`'s place: `target` is renamed aside, `next`
 * renamed to it, and the old one removed, so a reader of `target` finds the
 * previous whole directory or the new one, never a half-written one (between
 * the two renames, for the time of a system call, none).
 */
import { renameSync, rmSync } from 'node:fs';

export function replaceDir(next, target) {
  const old = `${target}.old`;
  rmSync(old, { recursive: true, force: true });
  try {
    renameSync(target, old);
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
  renameSync(next, target);
  rmSync(old, { recursive: true, force: true });
}

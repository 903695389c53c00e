/**
 * The times note of a file-store run, `<id>.times`: when each record became
 * durable (`<seq> <ms>`), and when a writer took the run up again after a
 * record (`r<seq> <ms>`), one entry a line, appended by the writer right after
 * each durable write. It is never fsynced and never part of the journal: a
 * crash may lose its last entries, and a torn, damaged or missing note loses
 * times, never a record. Later entries replace earlier ones for the same key.
 *
 * The note is opened as every file of the store is (never through a link, a
 * regular file only), and kept only when it is this user's with one name (no
 * hard link planted to a file elsewhere); anything else is left alone and the
 * run keeps no times.
 */
import { closeSync, constants, fstatSync, readSync, writeSync } from 'node:fs';
import type { RunTimes } from '../../core/index.js';
import { openOwnFile } from './fs.js';

/** The most of a times note read (about two million records' worth): a larger one is not a note logbook wrote. */
const MAX_NOTE_BYTES = 64 * 1024 * 1024;

/**
 * Opens `path` as the file store opens any file of its own (fs.ts openOwnFile:
 * never through a link, never blocking on a FIFO, a regular file only), and
 * keeps it only when it has this one name and is this user's: an entry a hard
 * link planted would make a file elsewhere take the times. -1 when not.
 */
function openPlainFile(path: string, flags: number): number {
  let fd: number;
  try {
    fd = openOwnFile(path, flags);
  } catch {
    return -1;
  }
  try {
    const stat = fstatSync(fd);
    const mine = process.getuid === undefined || stat.uid === process.getuid();
    if (stat.nlink === 1 && mine) return fd;
  } catch {
    /* treated as not a plain file */
  }
  closeSync(fd);
  return -1;
}

/** A writer's handle on a run's times note: each entry is one write(2), never fsynced; a failure only stops the times. */
export class TimesNote {
  private fd: number | null = null;
  private failed = false;

  constructor(private readonly path: string) {}

  /** Record `seq` became durable at `at`: the time kept for it, or undefined when the note keeps none. */
  durable(seq: number, at: number = Date.now()): number | undefined {
    return this.append(`${seq} ${at}\n`) ? at : undefined;
  }

  /** The writer took the run up again after record `seq`, at `at`. */
  resumed(seq: number, at: number = Date.now()): void {
    this.append(`r${seq} ${at}\n`);
  }

  /** Whether `entry` was written. */
  private append(entry: string): boolean {
    if (this.failed) return false;
    if (this.fd === null) {
      const fd = openPlainFile(this.path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
      if (fd < 0) {
        this.failed = true;
        return false;
      }
      this.fd = fd;
    }
    try {
      writeSync(this.fd, entry); // an entry is a few bytes: one write, appended whole or torn at a crash
      return true;
    } catch {
      this.failed = true;
      return false;
    }
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

const ENTRY = /^(r?)(\d{1,15}) (\d{1,16}(?:\.\d+)?)$/;

/** The times a note holds, as far as it can be read; none when it is missing or not a plain file. */
export function readTimesNote(path: string): RunTimes {
  const records = new Map<number, number>();
  const resumed = new Map<number, number>();
  const fd = openPlainFile(path, constants.O_RDONLY);
  if (fd < 0) return { records, resumed };
  try {
    const size = Math.min(fstatSync(fd).size, MAX_NOTE_BYTES);
    const buf = Buffer.allocUnsafe(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, buf, got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    const lines = buf.toString('latin1', 0, got).split('\n');
    lines.pop(); // after the last newline: nothing, or an entry torn by a crash
    for (const line of lines) {
      const m = ENTRY.exec(line);
      if (m === null) continue; // damage: that time is lost
      (m[1] === 'r' ? resumed : records).set(Number(m[2]), Number(m[3]));
    }
  } catch {
    /* what was read so far stands */
  } finally {
    closeSync(fd);
  }
  return { records, resumed };
}

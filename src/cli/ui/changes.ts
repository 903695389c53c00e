/**
 * What a run's page shows of its workspace: the changes span by span as
 * `session diff` finds them (api/workspace.ts runDiff: the one derivation,
 * from the snapshot notes beside the journal), a window of them at a time for
 * a long run, and one span's unified diff when the page asks for it. Every
 * string is made safe here (a file's name quoted as the diff headers quote
 * it) and set as text by the page.
 */
import { LogbookError } from '../../core/index.js';
import { runDiff, runSnapshots, spanHeading, type ChangeSpan } from '../../api/workspace.js';
import { fileCounts, shownFileName } from '../../render/file-changes.js';
import { reveal, sanitizeLine } from '../../render/sanitize.js';
import type { Store } from '../../store/store.js';

/** How many spans a page is sent at a time. */
export const CHANGES_WINDOW = 20;

export interface PageFile {
  name: string;
  status: string;
  /** `+A -R`, `binary`, `mode 100644 → 100755`. */
  counts: string;
  binary: boolean;
}

export interface PageSpan {
  index: number;
  heading: string;
  by: ChangeSpan['by']['kind'];
  turn?: number;
  part?: ChangeSpan['part'];
  fromSeq: number;
  toSeq: number;
  /** The snapshot it goes to: a span the run goes on in grows, and its diff with it. */
  to: string;
  files: PageFile[];
}

export interface PageChanges {
  /** How many spans the run has; the page holds those from `from` on. */
  total: number;
  from: number;
  spans: PageSpan[];
  /** The moments a snapshot was due and none was made, and why (a workspace too large to track, a file that could not be read). */
  missing: { seq: number; turn: number; moment: string; problem: string }[];
}

function pageSpan(span: ChangeSpan): PageSpan {
  return {
    index: span.index,
    heading: sanitizeLine(spanHeading(span)),
    by: span.by.kind,
    ...(span.by.kind === 'turn' ? { turn: span.by.turn } : {}),
    ...(span.part !== undefined ? { part: span.part } : {}),
    fromSeq: span.fromSeq,
    toSeq: span.toSeq,
    to: span.to,
    files: span.files.map((f) => ({ name: shownFileName(f.path), status: f.status, counts: fileCounts(f), binary: f.binary })),
  };
}

/** The window of run `id`'s changes before span `before` (the last ones without it); none for a store that keeps no snapshots. */
export async function pageChanges(store: Store, id: string, before: number | undefined, searchPath: string | undefined): Promise<PageChanges> {
  // A run without snapshots (most runs of a long journal's kind) is not read at all.
  if (store.workspace === null || (await runSnapshots(store, id)).length === 0) return { total: 0, from: 0, spans: [], missing: [] };
  const diff = await runDiff(store, id, { window: { ...(before !== undefined ? { before } : {}), size: CHANGES_WINDOW }, ...(searchPath !== undefined ? { searchPath } : {}) });
  const end = Math.min(before ?? diff.total, diff.total);
  return {
    total: diff.total,
    from: Math.max(0, end - CHANGES_WINDOW),
    spans: diff.spans.map(pageSpan),
    missing: diff.missing.map((m) => ({ seq: m.seq, turn: m.turn, moment: m.moment, problem: sanitizeLine(m.problem) })),
  };
}

/** Span `index` of run `id` with its unified diff (untrusted text: made safe here, set as text there). */
export async function pageSpanDiff(store: Store, id: string, index: number, searchPath: string | undefined): Promise<PageSpan & { diff: string }> {
  const diff = store.workspace === null ? null : await runDiff(store, id, { span: index, patch: true, ...(searchPath !== undefined ? { searchPath } : {}) });
  const span = diff?.spans[0];
  if (span === undefined) throw new LogbookError('not_found', `run ${id} has no change ${index}`);
  return { ...pageSpan(span), diff: reveal(span.patch ?? '') };
}

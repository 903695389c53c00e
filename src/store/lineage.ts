/**
 * Lineages: one conversation across the runs it went on in. A run's origin is
 * the run it was forked from, as its `forked` note says (run-notes.ts): `session
 * fork` made it, or it continues a completed run given a follow-up (a
 * completed run is never appended to). The rule, once for every caller:
 *
 *   The lineage of a run is its root, the run its origins lead back to (one
 *   with no origin, or whose origin is no longer in the store: that id is then
 *   the root), and every run forked or continued from that root, transitively.
 *
 * So every run of a conversation has the same lineage, whichever of its runs
 * is asked about, and each run is in exactly one lineage.
 *
 * A fork holds a copy of its origin's records up to the seq it was cut at
 * (ForkOrigin.at), byte for byte but for its meta: a record at or below that
 * seq is the origin's record, held again. A continuation (a compacted run's,
 * ForkOrigin.compacted) holds none: its first user turn summarizes them, and
 * every record of it is its own. Whatever sums over a lineage (tokens,
 * model calls, spend) counts each run's own records only, those after
 * `ownFrom(run) - 1`; counters folded from a fork's whole journal count its
 * copied records again.
 *
 * A lineage is a tree: a run forked twice has two branches. Where a listing
 * shows a conversation once per branch (lineageBranches), a branch is a run no
 * other listed run was forked or continued from, standing for the runs its
 * origins lead back through; a run with forks is an earlier part of each.
 *
 * Everything here works on a listing read with `origins` (Store.list): no run
 * is read whole, so grouping a store of thousands costs its notes, not its journals.
 */
import type { ForkOrigin, RunInfo, Store } from './store.js';

/** One conversation: its root's id and its runs in the order given (newest first, from a listing sorted so). */
export interface Lineage {
  root: string;
  runs: RunInfo[];
}

/** The runs of a listing by id. */
export type RunsById = ReadonlyMap<string, Pick<RunInfo, 'runId' | 'forkedFrom'>>;

/** A listing by run id, as lineage lookups take it. */
export function byId<T extends Pick<RunInfo, 'runId'>>(runs: readonly T[]): Map<string, T> {
  return new Map(runs.map((r) => [r.runId, r]));
}

/** The root of run `id`'s lineage: its origins followed back while they are in the store (a cycle, which no fork makes, stops where it closes). */
export function lineageRoot(runs: RunsById, id: string): string {
  const seen = new Set<string>();
  let at = id;
  for (;;) {
    seen.add(at);
    const from = runs.get(at)?.forkedFrom?.from;
    if (from === undefined || seen.has(from)) return at;
    if (!runs.has(from)) return from;
    at = from;
  }
}

/** The runs grouped by lineage, each lineage where its first run comes in `runs` (newest first, from a listing sorted so). */
export function groupLineages(runs: readonly RunInfo[], all: RunsById = byId(runs)): Lineage[] {
  const groups = new Map<string, Lineage>();
  const roots = new Map<string, string>();
  const rootOf = (id: string): string => {
    let root = roots.get(id);
    if (root === undefined) roots.set(id, (root = lineageRoot(all, id)));
    return root;
  };
  for (const run of runs) {
    const root = rootOf(run.runId);
    const group = groups.get(root);
    if (group === undefined) groups.set(root, { root, runs: [run] });
    else group.runs.push(run);
  }
  return [...groups.values()];
}

/** A branch of a lineage: its last run, and how many earlier runs of the listing its origins lead back through. */
export interface Branch<T> {
  run: T;
  earlier: number;
}

/**
 * The branches of the lineages of `runs`, in their order (newest first, from a
 * listing sorted so): each run no other of `runs` was forked or continued from,
 * with the runs of `runs` it goes back through counted. `all` (the whole
 * listing) follows an origin past a run that `runs` leaves out.
 */
export function lineageBranches<T extends Pick<RunInfo, 'runId' | 'forkedFrom'>>(runs: readonly T[], all: RunsById = byId(runs)): Branch<T>[] {
  const listed = new Set(runs.map((r) => r.runId));
  const origins = new Set<string>();
  for (const r of runs) {
    for (const at of originsOf(all, r.runId)) {
      if (listed.has(at)) {
        origins.add(at);
        break; // the nearest listed origin is the one this run continues
      }
    }
  }
  return runs.filter((r) => !origins.has(r.runId)).map((run) => ({ run, earlier: originsOf(all, run.runId).filter((id) => listed.has(id)).length }));
}

const NO_ORIGINS: readonly string[] = Object.freeze([]);

/** The origins of run `id`, nearest first, as far back as `runs` knows them (a cycle, which no fork makes, stops where it closes). */
function originsOf(runs: RunsById, id: string): readonly string[] {
  let from = runs.get(id)?.forkedFrom?.from;
  if (from === undefined) return NO_ORIGINS; // most runs: nothing to follow, nothing to allocate
  const out: string[] = [];
  const seen = new Set<string>([id]);
  while (from !== undefined && !seen.has(from)) {
    out.push(from);
    seen.add(from);
    from = runs.get(from)?.forkedFrom?.from;
  }
  return out;
}

/**
 * Run `id` after the runs it continues compacted, oldest first, as far back as
 * `runs` knows them: what shows a conversation whole. A fork shows its
 * origin's records itself; a continuation holds only a summary of them.
 */
export function continuedPath(runs: readonly Pick<RunInfo, 'runId' | 'forkedFrom'>[], id: string): string[] {
  const all = byId(runs);
  const path = [id];
  let child = id;
  for (const from of originsOf(all, id)) {
    if (!all.has(from)) break;
    if (all.get(child)?.forkedFrom?.compacted === true) path.unshift(from);
    child = from;
  }
  return path;
}

/**
 * The last run reached from `start` by following `next` (a run's successor
 * along a lineage's notes: the continuation a compaction made, the task run a
 * conversation's next request continued in; null where there is none), never
 * the same run twice.
 */
export async function lastAlong(start: string, next: (id: string) => Promise<string | null | undefined>): Promise<string> {
  let id = start;
  for (const seen = new Set<string>([id]); ; ) {
    const following = await next(id);
    if (following === null || following === undefined || seen.has(following)) return id;
    seen.add((id = following));
  }
}

/** Every run of run `id`'s lineage among `runs`, in their order. */
export function lineageOf<T extends Pick<RunInfo, 'runId' | 'forkedFrom'>>(runs: readonly T[], id: string): T[] {
  const all = byId(runs);
  const root = lineageRoot(all, id);
  return runs.filter((r) => lineageRoot(all, r.runId) === root);
}

/**
 * Every run joined to run `id` by origins (`origins`: each run's origin, where
 * it names one), followed either way: a run's origin, and the runs whose
 * origin it is, transitively. Whatever runs among them cannot be read (a run
 * listed unreadable has no origin), run `id`'s lineage is among these.
 */
export function lineageReach(origins: ReadonlyMap<string, string>, id: string): Set<string> {
  const joined = new Map<string, string[]>();
  const join = (a: string, b: string): void => {
    const list = joined.get(a);
    if (list === undefined) joined.set(a, [b]);
    else list.push(b);
  };
  for (const [run, from] of origins) {
    join(run, from);
    join(from, run);
  }
  const reach = new Set<string>([id]);
  for (const todo = [id]; todo.length > 0; ) {
    for (const next of joined.get(todo.pop()!) ?? []) {
      if (reach.has(next)) continue;
      reach.add(next);
      todo.push(next);
    }
  }
  return reach;
}

/**
 * The runs of run `id`'s lineage in `store`, as listed (with their origins,
 * and their note keys where the backend lists them), in the listing's order:
 * found from the origin notes, without reading every run (ListingOptions.lineage).
 */
export async function listLineage(store: Store, id: string): Promise<RunInfo[]> {
  return store.list({ origins: true, noteKeys: true, lineage: id });
}

/**
 * The last seq of a run's records that are copies of its origin's: a fork's
 * cut; 0 for a run that copied none (a first run, or a continuation, which
 * holds a summary of its origin instead, its origin's seq naming where the
 * summary cut).
 */
export function copiedThrough(origin: ForkOrigin | null | undefined): number {
  return origin === undefined || origin === null || origin.compacted ? 0 : origin.at;
}

/** The first seq that is run `run`'s own: after the records it copied from its origin. */
export function ownFrom(run: Pick<RunInfo, 'forkedFrom'>): number {
  return copiedThrough(run.forkedFrom) + 1;
}

/**
 * The run the record at `seq` of run `id` was written in: `id` itself, or,
 * when the record is one a fork copied (at or below its cut), its origin's
 * writer of it, followed back as lineageRoot follows origins (an origin no
 * longer in the store wrote what its forks copied).
 */
export function writtenIn(runs: RunsById, id: string, seq: number): string {
  const seen = new Set<string>();
  let at = id;
  for (;;) {
    seen.add(at);
    const origin = runs.get(at)?.forkedFrom;
    if (origin === undefined || seq > copiedThrough(origin) || seen.has(origin.from)) return at;
    if (!runs.has(origin.from)) return origin.from;
    at = origin.from;
  }
}

/**
 * The root of run `id`'s lineage, read from the origin notes hop by hop rather
 * than from a listing (what one run's trace needs, without reading the notes
 * of every run): the same rule as lineageRoot, an origin that is no longer in
 * the store being the root.
 */
export async function readLineageRoot(store: Store, id: string): Promise<string> {
  const seen = new Set<string>();
  let at = id;
  for (;;) {
    seen.add(at);
    const from = (await store.forkOrigin(at).catch(() => null))?.from;
    if (from === undefined || seen.has(from)) return at;
    if (!(await store.has(from).catch(() => false))) return from;
    at = from;
  }
}

/**
 * The run among `runs` that continues run `id` compacted (its continuation),
 * when it is there: the run that keeps only a summary of `id`'s records, so
 * removing `id` would leave the conversation without them and its spend
 * without theirs.
 */
export function continuationOf(runs: readonly Pick<RunInfo, 'runId' | 'forkedFrom'>[], id: string): string | undefined {
  return runs.find((r) => r.forkedFrom?.compacted === true && r.forkedFrom.from === id)?.runId;
}

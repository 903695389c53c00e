/**
 * A run's workspace, snapshotted at the moments the journal makes durable
 * (run-notes.ts SnapshotMoment): after an assistant record and before its
 * tools run, after a typed turn, at the terminal record, and before a resume
 * carries on. Each snapshot is a note beside the journal (`ws-N-NONCE`), never
 * part of it. A snapshot that fails is a warning and a note saying why; the run
 * goes on. A workspace that is not tracked (too large, the home directory) is
 * said once and noted once per run.
 */
import { homedir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { formatTimestamp } from '../core/index.js';
import { encodeSnapshot, snapshotNoteKey, type SnapshotMoment, type SnapshotNote } from '../store/run-notes.js';
import type { Store } from '../store/store.js';
import { shareTree } from '../store/workspace/shelf.js';
import { TooLarge, untrackedPlace, WorkspaceRepo, type Snapshot, type WorkspaceSettings } from '../store/workspace/repo.js';

/** What the runner calls at each durable moment; resolves to a warning to show, or null. */
export interface WorkspaceSnapshots {
  /** Snapshots the workspace as it is after record `seq` of run `runId`, and notes it beside the run; a warning to show, or null. */
  snapshot(runId: string, seq: number, moment: SnapshotMoment): Promise<string | null>;
  /**
   * Readies the next snapshot while nothing of the run changes the workspace
   * (a model's answer streaming), so that what is left of it after the record
   * is a look at what changed since. Nothing is noted.
   */
  prepare?(): void;
  /**
   * Looks at the workspace now (whether it is tracked: its limits, walked
   * once a process, always before its first `git add`), while nothing of the
   * run changes it (a model request being made and answered), so that the
   * snapshot after the answer does not wait for the walk. Nothing is noted.
   */
  look?(): void;
  /**
   * Begins the next snapshot's git work now, while nothing of the run changes
   * the workspace until that snapshot is asked (a run's last records being
   * written): the snapshot asked next takes what it finds and is noted then,
   * after its record, instead of looking again.
   */
  begin?(): void;
}

/** The workspace a run started in `startedIn` tracks: workspace.dir, else that directory. */
export function workspaceDir(settings: WorkspaceSettings, startedIn: string): string {
  return resolve(settings.dir ?? startedIn);
}

/** The store's snapshot repository, or null when the store keeps none. */
export function workspaceRepo(store: Store, searchPath?: string): WorkspaceRepo | null {
  const storage = store.workspace;
  return storage === null ? null : new WorkspaceRepo(storage.home, searchPath);
}

/** Snapshots one workspace into `store`, for every run it is asked about. */
export class WorkspaceTracker implements WorkspaceSnapshots {
  /**
   * Why the workspace is not tracked (and whether that is said, not only
   * noted; `from`: the seq it grew past a limit at), once known; undefined
   * until the first snapshot looks.
   */
  private off: Off | null | undefined;
  /** The run said the workspace is not tracked. */
  private saidOff = false;
  /** Runs told (noted) that the workspace is not tracked. */
  private readonly notedOff = new Set<string>();
  /** Problems already said: each is said once, and noted each time. */
  private readonly said = new Set<string>();
  /** The git work asked so far, one after another (git holds the index's lock while it writes it). */
  private queue: Promise<unknown> = Promise.resolve();
  /** A prepare is asked and not yet done. */
  private preparing = false;
  /** Snapshots whose git work was asked (begun or queued), counted: one asked since a readying was is the one it readied for. */
  private makesAsked = 0;
  /** The git work `begin` started, for the snapshot asked next. */
  private begun: Promise<Made> | null = null;
  /** The first look at the workspace (whyOff), while it is under way. */
  private looking: Promise<Off | null> | undefined;

  constructor(
    private readonly store: Store,
    private readonly repo: WorkspaceRepo,
    readonly dir: string,
    private readonly settings: WorkspaceSettings,
    /** The user's home directory: not tracked unless workspace.dir names it. */
    private readonly home: string = homedir(),
  ) {}

  /** A tracker for runs started in `startedIn` (git looked for on `searchPath`), or null when tracking is off or the store keeps no snapshots. */
  static for(store: Store, settings: WorkspaceSettings, startedIn: string, searchPath?: string): WorkspaceTracker | null {
    if (!settings.track) return null;
    const repo = workspaceRepo(store, searchPath);
    return repo === null ? null : new WorkspaceTracker(store, repo, workspaceDir(settings, startedIn), settings);
  }

  /**
   * Why this workspace is not tracked, or null when it is, looked at once (the
   * limits' walk stops as soon as one is passed). The walk comes before any
   * `git add` of the process, so a workspace grown past a limit since is
   * refused before any of it is copied into the store; `look` begins it as
   * a model request is made, so it runs beside the request and is seldom
   * waited for. A look that failed is looked at again next time.
   */
  private whyOff(): Promise<Off | null> {
    if (this.off !== undefined) return Promise.resolve(this.off);
    this.looking ??= this.walk().catch((err: unknown) => {
      this.looking = undefined;
      throw err;
    });
    return this.looking;
  }

  private async walk(): Promise<Off | null> {
    const place = this.settings.dir === undefined ? untrackedPlace(this.dir, this.home) : null;
    if (place !== null) return (this.off = { reason: place, say: false });
    const over = await this.repo.overLimits(this.dir, this.settings);
    this.off = over === null ? null : { reason: over.reason, say: true };
    return this.off;
  }

  look(): void {
    this.whyOff().catch(() => {}); // the snapshot meets a failure again, and says it
  }

  /**
   * Looks at the workspace (once: whyOff) at once, and takes its files into
   * the index ahead of the next snapshot: that snapshot's own `git add` then
   * finds only what changed since, and reuses the tree when nothing did.
   * Begun once the events the answer began in are handled, and skipped
   * where a snapshot was asked since (its own `git add` does all of it): an
   * answer that came whole is snapshotted once. A failure here is left for
   * the snapshot to meet and tell.
   */
  prepare(): void {
    if (this.preparing) return;
    this.preparing = true;
    this.whyOff().catch(() => {}); // the snapshot meets a failure again, and says it
    const asked = this.makesAsked;
    const superseded = (): boolean => this.makesAsked !== asked;
    setImmediate(() => {
      if (superseded()) {
        this.preparing = false;
        return;
      }
      this.queue = this.queue.then(async () => {
        try {
          if ((await this.whyOff()) === null && !superseded()) await this.repo.snapshotWithin(this.dir, this.settings);
        } catch {
          // the snapshot meets it again, and says it
        } finally {
          this.preparing = false;
        }
      });
    });
  }

  begin(): void {
    this.begun ??= this.queueMake();
  }

  /** Snapshots the workspace after record `seq` of run `runId` (a note beside the run either way); a warning to show, or null. */
  snapshot(runId: string, seq: number, moment: SnapshotMoment): Promise<string | null> {
    const made = this.begun ?? this.queueMake();
    this.begun = null;
    const taken = made.then((m) => this.note(runId, seq, moment, m));
    // After what was queued since a begun snapshot too (a readying), not only after that snapshot.
    this.queue = Promise.all([this.queue, taken]).catch(() => {});
    return taken;
  }

  /** The snapshot's git work, after whatever is queued. */
  private queueMake(): Promise<Made> {
    this.makesAsked++;
    const made = this.queue.then(() => this.make());
    this.queue = made;
    return made;
  }

  /** Looks at the workspace and snapshots it (git), or says why not; never throws. */
  private async make(): Promise<Made> {
    try {
      const off = await this.whyOff();
      if (off !== null) return { off };
      const made = await this.repo.snapshotWithin(this.dir, this.settings);
      if (made instanceof TooLarge) return { grewPast: (this.off = { reason: made.reason, say: true }) }; // not tracked from here on
      const shelf = this.store.workspace?.shelf;
      if (shelf !== undefined) await shareTree(this.repo, shelf, made.tree, [made.rules]);
      return { made };
    } catch (err) {
      return { failed: err instanceof Error ? err.message : String(err) };
    }
  }

  /** Notes what `make` found as the snapshot after record `seq` of run `runId`; a warning to show, or null. */
  private async note(runId: string, seq: number, moment: SnapshotMoment, found: Made): Promise<string | null> {
    const note: SnapshotNote = { seq, moment, at: formatTimestamp(new Date()), dir: this.dir };
    let warning: string | null = null;
    if ('failed' in found) {
      const why = found.failed;
      note.problem = `no snapshot of the workspace after seq ${seq}: ${why}`;
      if (!this.said.has(why)) warning = `${note.problem} (said once; the run goes on, and session show lists the turns without one)`;
      this.said.add(why);
    } else {
      // Grown past a limit during the run: not tracked from this seq on.
      if ('grewPast' in found) found.grewPast.from = seq;
      const off = 'grewPast' in found ? found.grewPast : 'off' in found ? found.off : null;
      if ('made' in found) {
        note.tree = found.made.tree;
        note.rules = found.made.rules;
      }
      if (off !== null) {
        if (this.notedOff.has(runId)) return null;
        this.notedOff.add(runId);
        note.problem = `the workspace ${this.dir} is not tracked${off.from !== undefined ? ` from seq ${off.from} on` : ''}: ${off.reason}`;
        // Said once; the home directory and / are left alone by default, which is noted, not said.
        if (off.say && !this.saidOff) warning = note.problem;
        this.saidOff = true;
      }
    }
    try {
      await this.store.putNote(runId, snapshotNoteKey(seq, randomBytes(6).toString('hex')), encodeSnapshot(note));
    } catch (err) {
      return `could not keep the workspace snapshot after seq ${seq} beside run ${runId}: ${err instanceof Error ? err.message : String(err)}`;
    }
    return warning;
  }
}

/** What a snapshot's git work found: a tree, why the workspace is not tracked (or grew past a limit now), or why it failed. */
type Off = { reason: string; say: boolean; from?: number };
type Made = { made: Snapshot } | { off: Off } | { grewPast: Off } | { failed: string };

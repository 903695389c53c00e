/**
 * Workspace snapshots shared through a JetStream object store the operator
 * made (session option `objects`): bound, never created. A missing one is
 * refused with the `nats object add` line that makes it, as a missing stream
 * is. Each object is one git object, named by its id (store/workspace/shelf.ts).
 */
import type { ObjectStore } from '@nats-io/obj';
import { LogbookError } from '../../core/index.js';
import type { ObjectShelf } from '../backend.js';
import type { Link } from './connection.js';

/** An object store's name, as the server takes one (its stream is OBJ_<name>). */
export const BUCKET_NAME = /^[a-zA-Z0-9_-]{1,200}$/;

/** The line that makes an object store fit for snapshots. */
export function objectAddCommand(bucket: string): string {
  return `nats object add ${bucket} --storage file`;
}

/** How many objects are asked after at once. */
const CONCURRENCY = 16;

export class JetStreamShelf implements ObjectShelf {
  private bound: Promise<ObjectStore> | null = null;

  constructor(
    private readonly link: Link,
    readonly bucket: string,
  ) {}

  get location(): string {
    return `object store ${this.bucket} at ${this.link.url}`;
  }

  /** The object store, bound once; a missing one refused with the line that makes it. */
  private store(): Promise<ObjectStore> {
    // The object store client loads only when a snapshot is shared or read.
    this.bound ??= import('@nats-io/obj').then(({ Objm }) => new Objm(this.link.js).open(this.bucket)).catch((err: unknown) => {
      this.bound = null;
      const missing = err instanceof Error && /not found/i.test(err.message);
      if (missing) {
        throw new LogbookError(
          'stream_config',
          `object store ${this.bucket} does not exist on ${this.link.url}; logbook never creates one, create it with: ${objectAddCommand(this.bucket)}`,
          { cause: err },
        );
      }
      throw this.link.failure(`cannot bind object store ${this.bucket}`, err);
    });
    return this.bound;
  }

  async holds(names: readonly string[]): Promise<Set<string>> {
    const os = await this.store();
    const held = new Set<string>();
    for (let i = 0; i < names.length; i += CONCURRENCY) {
      const batch = names.slice(i, i + CONCURRENCY);
      const infos = await Promise.all(batch.map((n) => os.info(n).catch((err: unknown) => Promise.reject(this.link.failure(`cannot read object store ${this.bucket}`, err)))));
      infos.forEach((info, k) => {
        if (info !== null && !info.deleted) held.add(batch[k]!);
      });
    }
    return held;
  }

  async put(name: string, bytes: Uint8Array): Promise<void> {
    const os = await this.store();
    try {
      await os.putBlob({ name }, bytes);
    } catch (err) {
      throw this.link.failure(`cannot keep object ${name} in object store ${this.bucket}`, err);
    }
  }

  async get(name: string): Promise<Uint8Array | null> {
    const os = await this.store();
    try {
      return await os.getBlob(name);
    } catch (err) {
      throw this.link.failure(`cannot read object ${name} from object store ${this.bucket}`, err);
    }
  }
}

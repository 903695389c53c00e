/**
 * A real three-node nats-server cluster for tests, on loopback: each node has
 * its own client, cluster (route) and monitoring port and its own store
 * directory, and JetStream is clustered across the three, so an R3 stream has
 * a leader that can be killed. The route ports must be known before any node
 * starts (each node lists the others), so every port is found free up front by
 * binding port 0 and letting it go. A node killed with kill() comes back with
 * restart() on the same ports and store directory.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager, type StreamConfig } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { newestNatsServer, perBlock, useStartedForFile, type NatsBinary } from './nats-server.js';

const READY_TIMEOUT_MS = 15_000;
/** How long the cluster may take to elect its first meta leader. */
const META_LEADER_TIMEOUT_MS = 30_000;

export interface ClusterNode {
  /** The node's server name (what stream info names as a leader). */
  readonly name: string;
  readonly url: string;
  readonly monitorUrl: string;
  readonly storeDir: string;
  /** Whether the node's process is running. */
  readonly running: boolean;
}

export interface NatsCluster {
  /** The nats-server every node runs. */
  readonly binary: NatsBinary;
  readonly nodes: readonly ClusterNode[];
  /** Every node's client URL, comma-separated (a `nats.url` naming the whole cluster). */
  readonly urls: string;
  /** The node named `name`. */
  node(name: string): ClusterNode;
  /** Creates a stream through a short-lived admin connection to a running node, retrying while the cluster settles. */
  addStream(config: Partial<StreamConfig> & { name: string }): Promise<void>;
  /** The server name of the stream's leader, asked of a running node; waits (bounded) while it has none. */
  streamLeader(stream: string): Promise<string>;
  /** SIGKILLs a node (no leadership hand-off) and waits for it to exit. */
  kill(name: string): Promise<void>;
  /** Starts a killed node again on its ports and store directory. */
  restart(name: string): Promise<void>;
  /** A node's log so far, for failure messages. */
  log(name: string): string;
  /** Stops every node and removes the store directories. */
  dispose(): Promise<void>;
}

/** `count` distinct loopback ports that were free a moment ago. */
async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      ports.push(address.port);
    }
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

interface NodeState {
  binary: NatsBinary;
  name: string;
  port: number;
  routePort: number;
  monitorPort: number;
  storeDir: string;
  configFile: string;
  proc: ChildProcess | null;
  logText: string;
}

function nodeConfig(cluster: string, node: NodeState, peers: NodeState[]): string {
  const routes = peers.filter((p) => p !== node).map((p) => `nats-route://127.0.0.1:${p.routePort}`);
  return [
    `server_name: ${node.name}`,
    `listen: 127.0.0.1:${node.port}`,
    `http: 127.0.0.1:${node.monitorPort}`,
    `jetstream { store_dir: ${JSON.stringify(node.storeDir)} }`,
    'cluster {',
    `  name: ${cluster}`,
    `  listen: 127.0.0.1:${node.routePort}`,
    `  routes: [${routes.join(', ')}]`,
    '}',
    '',
  ].join('\n');
}

function launch(node: NodeState): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(node.binary.path, ['-c', node.configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
    node.proc = child;
    let seen = '';
    let ready = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`nats-server ${node.name} did not become ready in ${READY_TIMEOUT_MS} ms:\n${seen}`));
    }, READY_TIMEOUT_MS);
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      node.logText += chunk;
      if (ready) return;
      seen += chunk;
      if (seen.includes('Server is ready')) {
        ready = true;
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('exit', (code, signal) => {
      if (!ready) {
        clearTimeout(timer);
        reject(new Error(`nats-server ${node.name} exited (${code ?? signal}) before it was ready:\n${seen}`));
      }
    });
  });
}

async function stopProcess(node: NodeState, signal: NodeJS.Signals): Promise<void> {
  const child = node.proc;
  node.proc = null;
  if (child === null || child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((done) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(kill);
      done();
    });
    child.kill(signal);
  });
}

/** Retries `fn` until it succeeds or `deadlineMs` passes; the last error is thrown. */
async function retrying<T>(deadlineMs: number, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

let clusters = 0;

/** Starts a cluster of `size` nodes of `binary` (the newest nats-server found here by default). */
export async function startNatsCluster(binary: NatsBinary = newestNatsServer(), size = 3): Promise<NatsCluster> {
  const root = mkdtempSync(join(tmpdir(), 'logbook-nats-cluster-'));
  const ports = await freePorts(size * 3);
  const clusterName = `logbook_${process.pid}_${clusters++}`;
  const states: NodeState[] = [];
  for (let i = 0; i < size; i++) {
    const name = `n${i + 1}`;
    const storeDir = join(root, name);
    mkdirSync(storeDir);
    states.push({
      binary,
      name,
      port: ports[i * 3]!,
      routePort: ports[i * 3 + 1]!,
      monitorPort: ports[i * 3 + 2]!,
      storeDir,
      configFile: join(root, `${name}.conf`),
      proc: null,
      logText: '',
    });
  }
  for (const s of states) writeFileSync(s.configFile, nodeConfig(clusterName, s, states));

  const stateOf = (name: string): NodeState => {
    const s = states.find((n) => n.name === name);
    if (s === undefined) throw new Error(`no node ${name}`);
    return s;
  };
  const running = (): NodeState[] => states.filter((s) => s.proc !== null);
  const view = (s: NodeState): ClusterNode => ({
    name: s.name,
    url: `nats://127.0.0.1:${s.port}`,
    monitorUrl: `http://127.0.0.1:${s.monitorPort}`,
    storeDir: s.storeDir,
    get running() {
      return s.proc !== null;
    },
  });
  /** Runs `fn` with a JetStream manager on some running node. */
  const admin = async <T>(fn: (jsm: Awaited<ReturnType<typeof jetstreamManager>>) => Promise<T>): Promise<T> => {
    const nc = await connect({ servers: running().map((s) => `127.0.0.1:${s.port}`), timeout: 2_000 });
    try {
      return await fn(await jetstreamManager(nc, { timeout: 2_000 }));
    } finally {
      await nc.close();
    }
  };

  const dispose = async (): Promise<void> => {
    await Promise.all(states.map((s) => stopProcess(s, 'SIGTERM')));
    rmSync(root, { recursive: true, force: true });
  };

  try {
    await Promise.all(states.map(launch));
    // JetStream answers once the nodes have elected a meta leader.
    await retrying(META_LEADER_TIMEOUT_MS, async () => {
      const jsz = (await (await fetch(`http://127.0.0.1:${states[0]!.monitorPort}/jsz`)).json()) as { meta_cluster?: { leader?: string } };
      if (!jsz.meta_cluster?.leader) throw new Error('the cluster has no meta leader yet');
    });
  } catch (err) {
    await dispose();
    throw err;
  }

  return {
    binary,
    nodes: states.map(view),
    urls: states.map((s) => `nats://127.0.0.1:${s.port}`).join(','),
    node: (name) => view(stateOf(name)),
    addStream: (config) => retrying(META_LEADER_TIMEOUT_MS, () => admin((jsm) => jsm.streams.add(config)).then(() => undefined)),
    streamLeader: (stream) =>
      retrying(META_LEADER_TIMEOUT_MS, async () => {
        const leader = await admin(async (jsm) => (await jsm.streams.info(stream)).cluster?.leader);
        if (!leader) throw new Error(`stream ${stream} has no leader yet`);
        return leader;
      }),
    kill: (name) => stopProcess(stateOf(name), 'SIGKILL'),
    async restart(name) {
      const s = stateOf(name);
      if (s.proc !== null) throw new Error(`node ${name} is running`);
      await launch(s);
    },
    log: (name) => stateOf(name).logText,
    dispose,
  };
}

/**
 * One cluster of `binary` for the calling test file (or describe block): started
 * in beforeAll (when the JetStream tests are enabled here) and disposed of in afterAll.
 */
export function useNatsCluster(binary?: NatsBinary): { enabled: boolean; cluster: () => NatsCluster } {
  const { enabled, get } = useStartedForFile('nats cluster', () => startNatsCluster(binary), 60_000);
  return { enabled, cluster: get };
}

/** The cluster of each describeEachNatsServer block: `start` it in the block, reach it with `cluster()`. */
export function natsClusterOfBlock(): { cluster: () => NatsCluster; start: (binary: NatsBinary) => void } {
  const block = perBlock<NatsCluster>('nats cluster');
  return { cluster: block.get, start: (binary) => block.use(useNatsCluster(binary).cluster) };
}

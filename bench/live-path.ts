/**
 * The live update path without the socket and without Node-RED's own delivery: where `tb-subscribe` (flat)
 * spends its CPU per update, stage by stage. Frames shaped exactly as the simulator's burst sends them
 * (one entity per `update` frame, `sentAt` a Java-printed double, `seq` a long) are handed to the hub as if they
 * came from the socket; each stage adds one step of the real path:
 *
 *   parse    JSON.parse of the frame (what every client does, the reference node included)
 *   route    the hub instead: the frame read (these frames by the hub's quick reader, without JSON.parse),
 *            frame checks, cmdId lookup, the subscription's onMessage (a subscriber that does nothing); less than
 *            `parse`
 *   merge    + EntityDataSubscription in raw format: the entity's state and the changed keys
 *   format   + the flat row (format flat), sink that drops the event
 *   send     + NodeSink: the message built and handed to node.send (a stub that keeps only the last message)
 *   deliver  + Node-RED's own delivery: the runtime's Node.send and Flow routing (hooks, setImmediate) to a
 *            sink node that calls done(), as the bench's sink node does (no agent)
 *
 * and the same for the reference node (its own per-frame code, `onFrame`):
 *
 *   ref          its onFrame (parse + one message per entity) with the stub node.send of `send`
 *   ref-deliver  its onFrame with Node-RED's own delivery, as `deliver`
 *
 * `send` ÷ `ref` and `deliver` ÷ `ref-deliver` are ours against the reference, the same work counted the same way.
 * Frames are fed 16 at a time (LP_BATCH=n for another size), each batch in its own turn of the event loop (as ws
 * hands over what one socket read brought): the runtime's setImmediate deliveries then run between batches, as they
 * do live. Bigger batches cost more per update, for the reference node as for ours (the messages of a turn wait for
 * their delivery in the next): in one run, `deliver` 4.6–4.8 µs at 16, 7.1–7.4 µs at 200 (one 64 KB read).
 *
 *   npx tsx bench/live-path.ts [--entities 1,100,1000] [--updates 200000] [--rounds 5] [--stages deliver,ref-deliver]
 *
 * Prints ns per update for each stage (the median of the rounds) and the difference to the previous stage.
 *
 * On a loaded machine, count instructions instead (valgrind, repeatable whatever the load): `--stage <name>
 * --feed K` generates --updates frames and feeds only the first K of them through that stage, once, printing
 * nothing else; two runs with different K give the instructions per update as the difference ÷ the difference
 * in K (start-up, frame generation and the JIT's warm-up are the same in both and cancel out):
 *
 *   valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p node --import tsx bench/live-path.ts \
 *     --entities 1000 --updates 40000 --stage send --feed 20000      (then --feed 40000)
 *
 * `bench/live-path-cg.sh` does both runs for every stage and prints the table.
 */
import type { Node, NodeAPI, NodeMessage } from 'node-red';
import type WebSocket from 'ws';
import { NodeSink } from '../src/families/live-node';
import { LiveHub, type Subscriber, type WsMessage } from '../src/live/hub';
import { EntityDataSubscription, type LiveEvent, type LiveSink } from '../src/live/subscriptions';
import type { EntityDataQuery } from '../src/protocol/types';
import { cliArg } from './lib/common';
import { median } from './lib/stats';

const STAGES = ['parse', 'route', 'merge', 'format', 'send', 'deliver', 'ref', 'ref-deliver'] as const;
type Stage = (typeof STAGES)[number];

const entityCounts = cliArg('entities', '1,100,1000').split(',').map(Number);
const updates = Number(cliArg('updates', '200000'));
const rounds = Number(cliArg('rounds', '5'));
const only = process.argv.includes('--stage') ? (cliArg('stage', 'send') as Stage) : undefined;
const feedCount = Number(cliArg('feed', String(updates)));
/** the stages timed (all by default), e.g. --stages deliver,ref-deliver */
const timed = cliArg('stages', STAGES.join(',')).split(',') as Stage[];
for (const s of timed) if (!STAGES.includes(s)) throw new Error(`unknown stage ${s}: ${STAGES.join(', ')}`);

const uuid = (i: number): string => `be4c0000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`;

/** The initial page, as the simulator answers the ENTITY_DATA command (values missing). */
function snapshotFrame(n: number): string {
  const data = [];
  for (let i = 0; i < n; i++) {
    data.push({
      entityId: { entityType: 'DEVICE', id: uuid(i) },
      latest: {
        ENTITY_FIELD: { name: { ts: 1795748543478, value: `Bench-${String(i + 1).padStart(6, '0')}` } },
        TIME_SERIES: { sentAt: { ts: 0, value: '' }, seq: { ts: 0, value: '' } },
      },
      timeseries: {},
      aggLatest: {},
    });
  }
  return JSON.stringify({
    cmdId: 1,
    data: { data, totalPages: 1, totalElements: n, hasNext: false },
    update: null,
    errorCode: 0,
    errorMsg: null,
    allowedEntities: 10000,
    cmdUpdateType: 'ENTITY_DATA',
  });
}

const DIGITS = Number(process.env.LP_DIGITS ?? 16);

/** Update frames round-robin over n entities, byte for byte the simulator's shape. */
function updateFrames(n: number, count: number): Buffer[] {
  const out: Buffer[] = new Array(count);
  const t0 = 1795748543966;
  for (let i = 0; i < count; i++) {
    const ts = t0 + i;
    // Java's Double.toString form; LP_DIGITS=17 gives the simulator's wall-clock values (17 significant digits
    // about three times in four), the default 16 keeps the counts comparable with the tables in RESULTS.md
    const frac = DIGITS === 17 ? ((i * 7919) % 1000003) / 1000003 : ((i * 7919) % 1000) / 1000;
    const sentAt = (ts + frac).toExponential().replace('e+', 'E');
    out[i] = Buffer.from(
      `{"cmdId":1,"data":null,"update":[{"entityId":{"entityType":"DEVICE","id":"${uuid(i % n)}"},` +
        `"latest":{"TIME_SERIES":{"sentAt":{"ts":${ts},"value":"${sentAt}"},"seq":{"ts":${ts},` +
        `"value":"${i + 1}"}}},"timeseries":null,"aggLatest":null}],` +
        `"errorCode":0,"errorMsg":null,"allowedEntities":10000,"cmdUpdateType":"ENTITY_DATA"}`,
    );
  }
  return out;
}

const query: EntityDataQuery = {
  entityFilter: { type: 'deviceType', deviceTypes: ['bench'] },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  latestValues: [
    { type: 'TIME_SERIES', key: 'sentAt' },
    { type: 'TIME_SERIES', key: 'seq' },
  ],
  pageLink: { page: 0, pageSize: 1000 },
} as EntityDataQuery;

let kept: unknown;
const dropSink: LiveSink = {
  event(ev: LiveEvent) {
    kept = ev;
  },
  state() {},
  error() {},
};
const idle: Subscriber = {
  command: () => ({ type: 'ENTITY_DATA' }),
  onMessage(msg: WsMessage) {
    kept = msg;
  },
  onError() {},
  onState() {},
  unsubscribeType: 'ENTITY_DATA_UNSUBSCRIBE',
};
const stubNode = {
  id: 'n1',
  send(msg: NodeMessage) {
    kept = msg;
  },
  status() {},
  error() {},
} as unknown as Node;
const stubRED = { _: (k: string) => k } as unknown as NodeAPI;

/** The reference node's per-frame code (plain JavaScript, loaded as is). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const refLive = require('./reference-node/ref-live.js') as {
  onFrame(node: { send(msg: NodeMessage): void }, data: Buffer): void;
};

/**
 * A source node wired to one sink node through Node-RED's own runtime (its Node and Flow classes, hooks and
 * setImmediate delivery), without the rest of the runtime: the flow object carries only what routing reads.
 */
function runtimeNode(type: string): Node {
  /* eslint-disable @typescript-eslint/no-require-imports -- the runtime's internals have no types */
  const FlowModule = require('@node-red/runtime/lib/flows/Flow') as {
    init(rt: unknown): void;
    Flow: { prototype: object };
  };
  const RuntimeNode = require('@node-red/runtime/lib/nodes/Node') as new (n: Record<string, unknown>) => Node;
  const util = require('@node-red/util') as { log: unknown };
  /* eslint-enable @typescript-eslint/no-require-imports */
  FlowModule.init({ settings: {}, log: util.log });
  const flow = Object.assign(Object.create(FlowModule.Flow.prototype) as Record<string, unknown>, {
    id: 'f1',
    TYPE: 'flow',
    flow: { id: 'f1', nodes: { sink: { id: 'sink', type: 'bench-sink' }, n1: { id: 'n1', type } } },
    activeNodes: {} as Record<string, Node>,
    subflowInstanceNodes: {},
    completeNodeMap: {},
    statusNodes: [],
    catchNodes: [],
  });
  const sink = new RuntimeNode({ id: 'sink', type: 'bench-sink', z: 'f1', _flow: flow, wires: [] });
  sink.on('input', (msg: NodeMessage, _send: unknown, done: () => void) => {
    kept = msg;
    done();
  });
  (flow.activeNodes as Record<string, Node>).sink = sink;
  const node = new RuntimeNode({ id: 'n1', type, z: 'f1', _flow: flow, wires: [['sink']] });
  // Statuses go nowhere (the editor's comms are not there), but through the runtime's own path.
  node.status = () => undefined;
  return node;
}

/**
 * A hub whose socket is a stand-in: the frames go to its receive path directly. The cast reaches two private
 * fields on purpose: this measures the hub's real onFrame, without a socket underneath.
 */
function hubWith(sub: Subscriber): (frame: Buffer) => void {
  const hub = new LiveHub({ url: 'http://127.0.0.1:1', auth: () => new Promise(() => undefined) });
  // pause/resume as ws has them (the hub pauses reading every FRAMES_PER_TURN frames until the next turn)
  let paused = false;
  const ws = {
    pause: () => void (paused = true),
    resume: () => void (paused = false),
    get isPaused() {
      return paused;
    },
  } as unknown as WebSocket;
  const inner = hub as unknown as {
    ws: WebSocket;
    byCmdId: Map<number, unknown>;
    onFrame(ws: WebSocket, data: Buffer, isBinary: boolean): void;
  };
  inner.ws = ws;
  inner.byCmdId.set(1, { sub, cmdId: 1, answered: true, queued: false, sentAt: 0, strikes: 0, isolate: false });
  return (frame) => inner.onFrame(ws, frame, false);
}

function pathFor(stage: Stage, n: number): (frame: Buffer) => void {
  if (stage === 'parse') return (frame) => (kept = JSON.parse(frame.toString()));
  if (stage === 'route') return hubWith(idle);
  if (stage === 'ref' || stage === 'ref-deliver') {
    const node = stage === 'ref' ? stubNode : runtimeNode('bench-ref-live');
    refLive.onFrame(node, Buffer.from(snapshotFrame(n)));
    return (frame) => refLive.onFrame(node, frame);
  }
  const sink =
    stage === 'send' || stage === 'deliver'
      ? new NodeSink(stubRED, stage === 'send' ? stubNode : runtimeNode('tb-subscribe'), 'entityData', () => undefined)
      : dropSink;
  const sub = new EntityDataSubscription(sink, query, stage === 'merge' ? 'raw' : 'flat');
  const feed = hubWith(sub);
  feed(Buffer.from(snapshotFrame(n)));
  return feed;
}

const BATCH = Number(process.env.LP_BATCH ?? 16);
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Feeds frames[0..count) in batches, each in its own turn of the event loop; resolves once all were delivered. */
async function feedAll(feed: (frame: Buffer) => void, frames: Buffer[], count: number): Promise<void> {
  for (let i = 0; i < count;) {
    const end = Math.min(count, i + BATCH);
    for (; i < end; i++) feed(frames[i]);
    await nextTurn();
  }
  await nextTurn();
}

async function measure(stage: Stage, n: number, frames: Buffer[]): Promise<number> {
  await feedAll(pathFor(stage, n), frames, Math.min(frames.length, 20000)); // warm-up
  const feed2 = pathFor(stage, n);
  const c0 = process.cpuUsage();
  await feedAll(feed2, frames, frames.length);
  const c = process.cpuUsage(c0);
  return ((c.user + c.system) * 1000) / frames.length;
}

async function main(): Promise<void> {
  for (const n of entityCounts) {
    const frames = updateFrames(n, updates);
    if (only) {
      await feedAll(pathFor(only, n), frames, feedCount);
      continue;
    }
    const res = new Map<Stage, number[]>();
    for (let r = 0; r < rounds; r++)
      for (const s of timed) res.set(s, [...(res.get(s) ?? []), await measure(s, n, frames)]);
    let prev = 0;
    const line: string[] = [];
    for (const s of timed) {
      const m = median(res.get(s)!);
      // The reference's stages stand alone: their differences are to ours, not to the stage before.
      const mine = s === 'ref' ? res.get('send') : s === 'ref-deliver' ? res.get('deliver') : undefined;
      const base = s === 'ref' || s === 'ref-deliver' ? (mine ? median(mine) : 0) : prev;
      line.push(
        `${s} ${m.toFixed(0)} ns (${base ? `${m - base >= 0 ? '+' : ''}${(m - base).toFixed(0)}` : m.toFixed(0)})`,
      );
      prev = m;
    }
    process.stdout.write(`@${n} entities, ns per update: ${line.join(' | ')}\n`);
  }
  if (process.env.LIVE_PATH_SHOW) process.stdout.write(`${JSON.stringify(kept)}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

/**
 * Flows saved by released versions of the package, run by today's runtime: the example flows of 0.1.0 and 0.2.0
 * and, per version, one node of every type as its dialog saved it at its defaults (test/fixtures/flows/, whose
 * README says how they were made). Each file is deployed unchanged into the real Node-RED runtime against the
 * simulator and its demo data; only each tb-connection's server address is pointed at the simulator (its URL, and
 * its analytics URL where the file has one on the same server or where the example's comment asks the reader to set
 * one), and the helper gives the connection the tenant's sign-in (a saved flow carries no credentials).
 *
 * Per flow: no node reports a configuration problem at deploy, each inject pressed (or firing by itself) brings the
 * output the example's comment describes to its debug nodes, and a live node sends its first message. Where the
 * comment says a flow ends in an error (a name that matches nothing, a connection without an analytics URL), that
 * error is asserted instead.
 */
import assert from 'node:assert/strict';
import type { EventEmitter } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { NodeAPI } from 'node-red';
import { startDemoActivity } from '../../scripts/demo-activity';
import { dbl, long, type Simulator } from '../../sim';
import tbAlarmAction from '../../src/nodes/tb-alarm-action';
import tbAlarmQuery from '../../src/nodes/tb-alarm-query';
import tbAlarmStatus from '../../src/nodes/tb-alarm-status';
import tbAttributes from '../../src/nodes/tb-attributes';
import tbBuildReport from '../../src/nodes/tb-build-report';
import tbConnection from '../../src/nodes/tb-connection';
import tbEntityCount from '../../src/nodes/tb-entity-count';
import tbEntityQuery from '../../src/nodes/tb-entity-query';
import tbRpc from '../../src/nodes/tb-rpc';
import tbSubscribe from '../../src/nodes/tb-subscribe';
import tbTelemetry from '../../src/nodes/tb-telemetry';
import tbWaitUntil from '../../src/nodes/tb-wait-until';
import {
  assertCode,
  Collector,
  coreNode,
  errorsLogged,
  helper,
  inject,
  key,
  lastStatus,
  sentBy,
  statuses,
  statusWhere,
  TENANT,
  useRuntime,
  type Msg,
} from '../support/runtime';
import { waitFor } from '../support/wait';

// the flows' messages are arbitrary JSON, read deep in the assertions
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Rec = Record<string, any>;
type FlowNode = Rec & { id: string; type: string };

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'flows');
const HOUR = 3600000;
const DAY = 24 * HOUR;

/** Every node type of the package as it is today: Node-RED loads them all, whatever a flow uses. */
const OUR_NODES = [
  tbConnection,
  tbEntityQuery,
  tbEntityCount,
  tbAlarmQuery,
  tbSubscribe,
  tbAlarmStatus,
  tbAlarmAction,
  tbBuildReport,
  tbTelemetry,
  tbAttributes,
  tbRpc,
  tbWaitUntil,
];

/** The module of each core node type the saved flows use (catch comes with the test helper). */
const CORE_FILES: Record<string, string> = {
  comment: 'common/90-comment.js',
  inject: 'common/20-inject.js',
  debug: 'common/21-debug.js',
  function: 'function/10-function.js',
  switch: 'function/10-switch.js',
  change: 'function/15-change.js',
  template: 'function/80-template.js',
  delay: 'function/89-delay.js',
  join: 'sequence/17-split.js',
  file: 'storage/10-file.js',
  'http in': 'network/21-httpin.js',
  'http response': 'network/21-httpin.js',
};

/** A value as plain JSON: what a function node made lives in its own sandbox (other prototypes). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the same arbitrary JSON
const plain = (v: unknown): any => JSON.parse(JSON.stringify(v));

/**
 * The test helper keeps the runtime's http-in routes (RED.httpNode) on an app of its own that no server serves:
 * this node module takes it when the flow loads, and a loopback server serves it for the test's requests.
 */
let httpNode: http.RequestListener | undefined;
function takeHttpNode(RED: NodeAPI): void {
  httpNode = RED.httpNode as unknown as http.RequestListener;
}

/** A saved flow as deployed, with what the tests read of it. */
interface Deployed {
  nodes: FlowNode[];
  /** The node of that name (and type, where an inject and its debug node share a name). */
  node(name: string, type?: string): FlowNode;
  /** Every message that reached the debug node of that name since the deploy. */
  out(name: string): Collector;
  /** Presses the button of the inject node of that name. */
  press(name: string): void;
}

/** Where a fixture's file is. */
const fixture = (version: string, file: string): string => path.join(FIXTURES, version, file);

/**
 * Deploys a saved flow unchanged but for its connections' server address: `url` (and an analytics URL on the same
 * server) pointed at the simulator; `analyticsUrl` sets the analytics URL where an example asks the reader to.
 */
async function deploy(
  sim: Simulator,
  version: string,
  file: string,
  opts: { analyticsUrl?: string } = {},
): Promise<Deployed> {
  const saved = JSON.parse(fs.readFileSync(fixture(version, file), 'utf8')) as FlowNode[];
  const nodes = saved.map((n): FlowNode => {
    if (n.type !== 'tb-connection') return n;
    const onServer = n.url && typeof n.analyticsUrl === 'string' && n.analyticsUrl.startsWith(n.url);
    const analyticsUrl =
      opts.analyticsUrl ?? (onServer ? sim.url + n.analyticsUrl.slice(n.url.length) : n.analyticsUrl);
    return { ...n, url: sim.url, analyticsUrl };
  });
  // Nothing else differs from the file.
  const others = (list: FlowNode[]) =>
    list.map((n) => (n.type === 'tb-connection' ? { ...n, url: undefined, analyticsUrl: undefined } : n));
  assert.deepEqual(others(nodes), others(saved));

  const types = new Set(nodes.map((n) => n.type));
  const core = [...new Set([...types].filter((t) => CORE_FILES[t]).map((t) => CORE_FILES[t]))].map(coreNode);
  const creds = Object.fromEntries(nodes.filter((n) => n.type === 'tb-connection').map((n) => [n.id, TENANT]));
  // the node modules' and flows' exact types do not matter to helper.load
  await helper.load([...OUR_NODES, ...core, takeHttpNode] as never, nodes as never, creds);

  const collectors = new Map(nodes.filter((n) => n.type === 'debug').map((n) => [n.id, new Collector(n.id)]));
  const node = (name: string, type?: string): FlowNode => {
    const found = nodes.filter((n) => n.name === name && (type === undefined || n.type === type));
    assert.equal(found.length, 1, `one ${type ?? 'node'} named "${name}" in ${file}`);
    return found[0];
  };
  return {
    nodes,
    node,
    out: (name) => collectors.get(node(name, 'debug').id)!,
    press: (name) => inject(node(name, 'inject').id, {} as never),
  };
}

/** What a node is called in a failed assertion. */
const label = (n: FlowNode): string => `${n.type} "${n.name || n.id}"`;

/**
 * No node has shown a red status or logged an error (a configuration problem at deploy does both), but the
 * nodes `except` (by id).
 */
function assertClean(flow: Deployed, except: string[] = []): void {
  for (const n of flow.nodes) {
    if (n.type === 'tab' || except.includes(n.id)) continue;
    assert.deepEqual(
      statuses(n.id).filter((s) => s.fill === 'red'),
      [],
      `${label(n)}: no red status`,
    );
    assert.deepEqual(errorsLogged(n.id).map(String), [], `${label(n)}: no error`);
  }
}

/**
 * Resolves with the `event` of the first message node `id` sends (at once when it has sent one already). Only the
 * event: the nodes downstream change the message itself (Node-RED hands the first wire the same object).
 */
function firstEvent(id: string, ms = 8000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const n = helper.getNode(id) as unknown as EventEmitter;
    const t = setTimeout(() => reject(new Error(`timed out waiting for a message from "${id}"`)), ms);
    const check = (): boolean => {
      const sent = sentBy(id);
      if (!sent.length) return false;
      clearTimeout(t);
      n.removeListener('call:send', check);
      resolve(sent[0].event);
      return true;
    };
    if (!check()) n.on('call:send', check);
  });
}

/** Resolves with the next error node `id` logs (a message that ended in done(err) is logged by the runtime). */
function nextError(id: string, ms = 8000): Promise<Rec> {
  const before = errorsLogged(id).length;
  return new Promise((resolve, reject) => {
    const n = helper.getNode(id) as unknown as EventEmitter;
    const t = setTimeout(() => reject(new Error(`timed out waiting for an error of "${id}"`)), ms);
    const check = (): void => {
      const all = errorsLogged(id);
      if (all.length <= before) return;
      clearTimeout(t);
      n.removeListener('call:error', check);
      resolve(all[before] as Rec);
    };
    n.on('call:error', check);
  });
}

/** Resolves once node `id` has shown a status matching `pred` (at once when it already has). */
function statusSeen(
  id: string,
  pred: (s: { fill?: string; shape?: string; text?: string }) => boolean,
  ms = 8000,
): Promise<unknown> {
  return statuses(id).some(pred) ? Promise.resolve() : statusWhere(id, pred, ms);
}

/** The simulator's WebSocket subscriptions (the cmdIds of every session). */
const subscriptions = (sim: Simulator): number => sim.ws.sessionList().reduce((n, s) => n + s.cmdIds.length, 0);

/** The first message collected from index `from` on that matches, already there or still to come. */
function since(c: Collector, from: number, pred: (m: Msg) => boolean = () => true, ms = 8000): Promise<Msg> {
  const hit = c.since(from).find(pred);
  return hit ? Promise.resolve(hit) : c.until(pred, ms);
}

const byName = (a: { name: string }, b: { name: string }): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

describe('flows saved by 0.1.0 and 0.2.0, deployed unchanged (runtime + simulator)', function () {
  this.timeout(30000);
  const files = fs.mkdtempSync(path.join(os.tmpdir(), 'tb-saved-flows-'));
  after(() => fs.rmSync(files, { recursive: true, force: true }));
  // RPC waits a hundredth of their time; following a persistent RPC polls every 20-80 ms; a file node's relative
  // file name is in a temporary folder.
  const sim = useRuntime(
    { rpcTimeScale: 0.01 },
    {
      perTest: true,
      server: true,
      settings: { tbConnectionRpcPollInitialMs: 20, tbConnectionRpcPollMaxMs: 80, fileWorkingDirectory: files },
    },
  );

  const thermostats = () =>
    sim.data
      .devices()
      .filter((d) => d.type === 'thermostat')
      .sort(byName);
  const devices = () => sim.data.devices().sort(byName);
  const temperature = (id: string) => sim.data.latestOf(id, 'temperature')?.value ?? null;
  /** The demo's history (a week of hourly energy and temperatures) and its first alarm, as `npm start` has them. */
  const demoData = () => startDemoActivity(sim)();
  /** Active alarms created within the last 24 hours, of these severities. */
  const recentActive = (severities: string[]) =>
    sim.data.alarms().filter((a) => !a.cleared && severities.includes(a.severity) && a.createdTime >= sim.now() - DAY);

  it('the fixtures: the flows of each version that the tests below deploy, and nothing else', () => {
    const shared = [
      'Active alarms to notifications.json',
      'Alarm to notification pipeline.json',
      'Count entities and alarms.json',
      'Fetch all pages.json',
      'Live telemetry table.json',
      'Query devices.json',
      'Report to chart data.json',
      'Scheduled report to CSV.json',
      'dialogs.json',
    ];
    const added = [
      'Acknowledge from a notification.json',
      'Command a device and wait for its answer.json',
      'Count the alarms of the site named in a message.json',
      'Follow the device chosen by a message.json',
      'Last 24 hours, hourly average.json',
      'Raise an alarm from a flow.json',
      'Record a computed value.json',
      'Reply with the state of the device named in a request.json',
      'Set the target temperature of every thermostat.json',
    ];
    const listed = (version: string) => fs.readdirSync(path.join(FIXTURES, version)).sort();
    assert.deepEqual(listed('0.1.0'), [...shared].sort());
    assert.deepEqual(listed('0.2.0'), [...shared, ...added].sort());
  });

  for (const version of ['0.1.0', '0.2.0']) {
    describe(`flows saved by ${version}`, () => {
      const v1 = version === '0.1.0';

      it('Query devices: all thermostats with their latest values, the warm ones from a query in the message, the keys of the meters', async () => {
        const flow = await deploy(sim, version, 'Query devices.json');
        assertClean(flow);

        flow.press('all thermostats');
        const all = await flow.out('thermostats').until(() => true);
        const rows = all.payload as Rec[];
        assert.deepEqual(
          rows.map((r) => r.name),
          thermostats().map((d) => d.name),
        );
        for (const r of rows) {
          assert.deepEqual(Object.keys(r).sort(), [
            'entityType',
            'humidity',
            'id',
            'label',
            'name',
            'temperature',
            'ts',
            'type',
          ]);
          assert.equal(r.type, 'thermostat');
          assert.equal(r.temperature, temperature(r.id));
        }
        assert.equal((all.page as Rec).totalElements, 20);

        flow.press('warm thermostats');
        const warm = (await flow.out('warm thermostats').until(() => true)).payload as Rec[];
        const expected = thermostats().filter((d) => Number(temperature(d.id)) > 22);
        assert.ok(expected.length > 1, 'the demo data has warm thermostats');
        assert.deepEqual(warm.map((r) => r.name).sort(), expected.map((d) => d.name).sort());
        const temps = warm.map((r) => r.temperature as number);
        assert.deepEqual(
          temps,
          [...temps].sort((a, b) => b - a),
          'warmest first',
        );

        flow.press('keys of the meters');
        const keys = (await flow.out('meter keys').until(() => true)).payload as Rec;
        assert.ok(keys.timeseries.includes('energy'), JSON.stringify(keys));
        assert.ok(keys.timeseries.includes('power'), JSON.stringify(keys));
        assertClean(flow);
      });

      it('Fetch all pages: every device, page by page, one message each, °F added, joined back into one array', async () => {
        const flow = await deploy(sim, version, 'Fetch all pages.json');
        assertClean(flow);
        const before = sim.countRequests('/api/entitiesQuery/find');
        flow.press('all devices');
        const all = (await flow.out('all devices').until(() => true)).payload as Rec[];
        const expected = devices();
        assert.deepEqual(
          all.map((r) => r.name),
          expected.map((d) => d.name),
        );
        for (const r of all) {
          const t = temperature(r.id);
          if (typeof t === 'number') assert.equal(r.temperatureF, Math.round(((t * 9) / 5 + 32) * 10) / 10, r.name);
          else assert.equal(r.temperatureF, undefined, r.name);
        }
        assert.equal(
          (await flow.out('summary').until(() => true)).payload,
          `${expected.length} devices of ${expected.length}`,
        );
        assert.equal(
          sim.countRequests('/api/entitiesQuery/find') - before,
          Math.ceil(expected.length / 10),
          'pages of 10',
        );
        assertClean(flow);
      });

      it('Count entities and alarms: thermostats, buildings and active critical or major alarms, each a number', async () => {
        const flow = await deploy(sim, version, 'Count entities and alarms.json');
        assertClean(flow);
        // 0.1.0 counts a second after deploy; 0.2.0 the first time a minute after it, or when its button is pressed.
        if (!v1) flow.press('every minute');
        const [t, b, a] = await Promise.all(
          ['thermostats', 'buildings', 'active alarms'].map((name) => flow.out(name).until(() => true, 8000, true)),
        );
        assert.equal(t.payload, 20);
        assert.equal(b.payload, sim.data.assets().filter((x) => x.type === 'building').length);
        const active = sim.data.alarms().filter((x) => !x.cleared && ['CRITICAL', 'MAJOR'].includes(x.severity));
        assert.ok(active.length > 0);
        assert.equal(a.payload, active.length);
        assertClean(flow);
      });

      it('Active alarms to notifications: one text per active critical or major alarm of the last day', async () => {
        const a101 = sim.data.mustFindByName('DEVICE', 'Thermo A-101');
        const b201 = sim.data.mustFindByName('DEVICE', 'Thermo B-201');
        const now = sim.now();
        sim.data.createAlarm({
          originator: a101.id,
          type: 'Overheating',
          severity: 'CRITICAL',
          createdTime: now - 120000,
        });
        sim.data.createAlarm({ originator: b201.id, type: 'Door open', severity: 'MAJOR', createdTime: now - 60000 });
        sim.data.createAlarm({ originator: b201.id, type: 'Low battery', severity: 'MINOR', createdTime: now - 30000 });
        assert.equal(recentActive(['CRITICAL', 'MAJOR']).length, 2, 'the demo data holds no alarm of the last day');
        const flow = await deploy(sim, version, 'Active alarms to notifications.json');
        assertClean(flow);
        // 0.1.0 fetches 2 s after deploy; 0.2.0 the first time 5 minutes after it, or when its button is pressed.
        if (!v1) flow.press('every 5 minutes');
        const notes = flow.out('notification');
        await notes.until(() => notes.all.length === 2, 8000, true);
        // newest first, each device by its label (its display name)
        assert.deepEqual([a101.label, b201.label], ['Room 101', 'Room 201']);
        assert.deepEqual(
          notes.all.map((m) => m.topic),
          ['MAJOR alarm on Room 201', 'CRITICAL alarm on Room 101'],
        );
        assert.match(String(notes.all[0].payload), /^MAJOR: Door open on Room 201 since \S.*$/);
        assert.match(String(notes.all[1].payload), /^CRITICAL: Overheating on Room 101 since \S.*$/);
        assertClean(flow);
      });

      it('Alarm to notification pipeline: live alarms told when created and cleared; every meter watched by one alarm status node', async () => {
        const flow = await deploy(sim, version, 'Alarm to notification pipeline.json');
        assertClean(flow);
        const live = flow.node('live alarms');
        const status = flow.out('alarm status');
        const notification = flow.out('notification');
        const meters = sim.data.devices().filter((d) => d.type === 'meter');
        assert.ok(meters.length > 1);
        const alarmed = (id: string) =>
          sim.data
            .alarms()
            .some((a) => a.originator.id === id && !a.cleared && ['CRITICAL', 'MAJOR'].includes(a.severity));
        // "watch all meters" fires by itself 2 s after deploy: one answer per meter, named in msg.topic.
        await status.until(() => meters.every((m) => status.all.some((x) => x.topic === m.id)), 15000, true);
        for (const m of meters) {
          const answers = status.all.filter((x) => x.topic === m.id);
          assert.deepEqual(
            answers.map((x) => x.payload),
            [alarmed(m.id)],
            m.name,
          );
        }
        await statusSeen(live.id, (s) => s.fill === 'green', 15000);
        if (v1) {
          // Its first message is the snapshot: no alarm of the last 24 hours (the switch lets it pass by).
          assert.equal(await firstEvent(live.id), 'snapshot');
        }
        const quiet = meters.find((m) => !alarmed(m.id))!;
        assert.ok(quiet, 'a meter without an alarm');
        let [told, answered] = [notification.all.length, status.all.length];
        const alarm = sim.data.createAlarm({ originator: quiet.id, type: 'Leak', severity: 'CRITICAL' });
        assert.equal((await since(notification, told)).payload, `New CRITICAL alarm "Leak" on ${quiet.name}`);
        // 0.2.0 sends created and cleared alarms only: its first message is this one.
        if (!v1) assert.equal(await firstEvent(live.id), 'created');
        const now = await since(status, answered, (m) => m.topic === quiet.id);
        assert.deepEqual([now.payload, now.originator], [true, { entityType: 'DEVICE', id: quiet.id }]);
        [told, answered] = [notification.all.length, status.all.length];
        sim.data.clearAlarm(alarm.id);
        assert.equal((await since(notification, told)).payload, `Cleared: "Leak" on ${quiet.name}`);
        assert.equal((await since(status, answered, (m) => m.topic === quiet.id)).payload, false);
        assertClean(flow);
      });

      it('Live telemetry table: a snapshot at deploy, an update per change, the table kept; stop unsubscribes', async () => {
        const flow = await deploy(sim, version, 'Live telemetry table.json');
        assertClean(flow);
        const live = flow.node('live thermostats');
        const every = flow.out('every event');
        const table = flow.out('table');
        const snap = await every.until((m) => m.event === 'snapshot', 8000, true);
        assert.equal(await firstEvent(live.id), 'snapshot', 'its first message');
        assert.deepEqual(
          (snap.payload as Rec[]).map((r) => r.name),
          thermostats().map((d) => d.name),
        );
        const first = await table.until(() => true, 8000, true);
        assert.equal((first.payload as Rec[]).length, 20);
        const a101 = sim.data.mustFindByName('DEVICE', 'Thermo A-101');
        sim.data.setTelemetry(a101.id, { temperature: dbl(30.5) });
        const u = await every.until((m) => m.event === 'update');
        assert.deepEqual([u.topic, u.changed, (u.payload as Rec).temperature], [a101.id, ['temperature'], 30.5]);
        const kept = await table.until((m) =>
          (m.payload as Rec[]).some((r) => r.id === a101.id && r.temperature === 30.5),
        );
        assert.equal((kept.payload as Rec[]).length, 20);
        assert.equal(subscriptions(sim), 1);
        flow.press('stop');
        await statusSeen(live.id, (s) => s.text === key('unsubscribed'));
        await waitFor(() => subscriptions(sim) === 0, 5000, 'the subscription ended on the server');
        assertClean(flow);
      });

      it('dialogs: a node of every type, as its dialog saved it at its defaults, deploys clean and answers its inject', async () => {
        const a101 = sim.data.mustFindByName('DEVICE', 'Thermo A-101');
        // For 0.1.0's default alarm query (active critical and major alarms of the last 24 hours): one to find.
        const alarm = sim.data.createAlarm({ originator: a101.id, type: 'Overheating', severity: 'CRITICAL' });
        const flow = await deploy(sim, version, 'dialogs.json');
        assertClean(flow);
        const types = flow.nodes
          .filter((n) => n.type.startsWith('tb-') && n.type !== 'tb-connection')
          .map((n) => n.type);
        assert.deepEqual(
          types,
          v1
            ? [
                'tb-entity-query',
                'tb-entity-count',
                'tb-alarm-query',
                'tb-subscribe',
                'tb-alarm-status',
                'tb-build-report',
              ]
            : [
                'tb-entity-query',
                'tb-entity-count',
                'tb-alarm-query',
                'tb-subscribe',
                'tb-alarm-status',
                'tb-alarm-action',
                'tb-build-report',
                'tb-telemetry',
                'tb-attributes',
                'tb-rpc',
              ],
        );
        const out = (type: string) => flow.out(`${type} output`);
        const press = (type: string) => inject(`${type}.inject`, {} as never);
        /** Presses the inject in front of `type`: the node refuses the timestamp it sends, with this error. */
        const refuses = async (type: string, code: string, text: RegExp) => {
          const error = nextError(type);
          press(type);
          const e: unknown = await error;
          // No Catch node in this flow: the error is logged as its text, the one line the debug sidebar shows; its
          // code is in the status it set (invalid input, config error).
          assert.equal(typeof e, 'string', `${type}: logged as its text`);
          assert.match(String(e), text, type);
          const kind: Record<string, string> = { TB_INVALID_INPUT: 'invalidInput', TB_CONFIG: 'configError' };
          assert.deepEqual([lastStatus(type)?.fill, lastStatus(type)?.text], ['red', key(kind[code])], type);
        };
        const names = (rows: Rec[]) => rows.map((r) => r.name);

        // The live node subscribed at deploy: its first message is the snapshot of its default query.
        const listed = v1 ? thermostats() : devices();
        assert.equal(await firstEvent('tb-subscribe'), 'snapshot');
        const snap = await out('tb-subscribe').until((m) => m.event === 'snapshot', 8000, true);
        assert.deepEqual(names(snap.payload as Rec[]), names(listed));

        press('tb-entity-query');
        const rows = (await out('tb-entity-query').until(() => true)).payload as Rec[];
        assert.deepEqual(names(rows), names(listed));
        assert.deepEqual(
          Object.keys(rows[0]).sort(),
          v1
            ? ['entityType', 'humidity', 'id', 'label', 'name', 'temperature', 'ts', 'type']
            : ['entityType', 'id', 'label', 'name', 'ts', 'type'],
        );

        press('tb-entity-count');
        assert.equal((await out('tb-entity-count').until(() => true)).payload, listed.length);

        press('tb-alarm-query');
        const alarms = (await out('tb-alarm-query').until(() => true)).payload as Rec[];
        // 0.1.0: active critical and major alarms of the last day; 0.2.0: every active alarm of a device.
        const expected = v1
          ? [alarm.id]
          : sim.data
              .alarms()
              .filter((a) => !a.cleared && a.originator.entityType === 'DEVICE')
              .map((a) => a.id);
        assert.deepEqual(alarms.map((a) => a.id).sort(), expected.sort());

        // A message without an action subscribes again: a second snapshot.
        press('tb-subscribe');
        const again = await out('tb-subscribe').until(
          (m) => sentBy('tb-subscribe').length === 2 && m.event === 'snapshot',
          8000,
          true,
        );
        assert.deepEqual(names(again.payload as Rec[]), names(listed));

        // Without an originator set, the alarm status node waits for one in msg.payload: a timestamp is refused.
        assert.deepEqual(lastStatus('tb-alarm-status'), { fill: 'grey', shape: 'ring', text: key('idle') });
        await refuses('tb-alarm-status', 'TB_INVALID_INPUT', /msg\.payload must be an entity id/);
        inject('tb-alarm-status', { payload: { entityType: 'DEVICE', id: a101.id } });
        const watched = await out('tb-alarm-status').until(() => true);
        assert.deepEqual([watched.topic, watched.payload], [a101.id, true]);

        // No view id and no analytics URL: the report node says what to set.
        await refuses('tb-build-report', 'TB_CONFIG', /The connection has no analytics URL/);

        if (!v1) {
          // The device actions act on the entity of the message: a timestamp alone is refused, an entity is acted on.
          await refuses('tb-alarm-action', 'TB_INVALID_INPUT', /msg\.payload must be an alarm id/);
          inject('tb-alarm-action', { payload: alarm.id });
          const acked = await out('tb-alarm-action').until(() => true);
          assert.deepEqual([acked.operation, (acked.payload as Rec).acknowledged], ['acknowledge', true]);
          assert.equal(sim.data.getAlarm(alarm.id)?.acknowledged, true);

          const entity = { entityType: 'DEVICE', id: a101.id };
          await refuses('tb-telemetry', 'TB_INVALID_INPUT', /Output to msg\.entity, or send the entity in msg\.entity/);
          inject('tb-telemetry', { entity, payload: { probe: 1.5 } });
          await out('tb-telemetry').until(() => true);
          assert.deepEqual(
            [sim.data.latestOf(a101.id, 'probe')?.type, sim.data.latestOf(a101.id, 'probe')?.value],
            ['DOUBLE', 1.5],
          );

          await refuses(
            'tb-attributes',
            'TB_INVALID_INPUT',
            /Output to msg\.entity, or send the entity in msg\.entity/,
          );
          inject('tb-attributes', { entity, payload: { probe: 'on' } });
          await out('tb-attributes').until(() => true);
          assert.equal(sim.data.attributeOf(a101.id, 'SERVER_SCOPE', 'probe')?.value, 'on');

          await refuses('tb-rpc', 'TB_INVALID_INPUT', /Output to msg\.entity, or send the entity in msg\.entity/);
          inject('tb-rpc', { entity, method: 'getState', payload: { verbose: true } });
          const reply = await out('tb-rpc').until(() => true);
          assert.deepEqual(reply.payload, { method: 'getState', params: { verbose: true } });
        }
        const refusing = [
          'tb-alarm-status',
          'tb-build-report',
          'tb-alarm-action',
          'tb-telemetry',
          'tb-attributes',
          'tb-rpc',
        ];
        assertClean(flow, refusing);
      });

      /** Presses "build" of the report example and checks the chart data of the demo's week of energy. */
      async function chartOfTheWeek(flow: Deployed): Promise<void> {
        flow.press('build');
        const out = await flow.out('chart data').until(() => true, 15000);
        assert.deepEqual(out.columns, ['Date', 'Building', 'energy']);
        const [chart] = plain(out.payload) as Array<{ series: string[]; data: Array<Array<Rec>>; labels: string[] }>;
        assert.deepEqual(chart.series, ['Building Alpha', 'Building Beta', 'Building Gamma']);
        assert.deepEqual(chart.labels, ['']);
        for (const points of chart.data) {
          assert.ok(points.length >= 7 && points.length <= 8, `one point a day over 7 days: ${points.length}`);
          for (let i = 1; i < points.length; i++) assert.equal(points[i].x - points[i - 1].x, DAY);
          assert.ok(points.every((p) => Number.isInteger(p.y) && p.y > 0));
        }
        assert.equal(sim.analytics.countRequests('publicApi/buildReport'), 1);
      }

      /** The CSV of the demo's last day of energy, as the report example writes it. */
      function assertEnergyCsv(csv: string): void {
        const lines = csv.trim().split(/\r?\n/);
        assert.equal(lines[0], 'Date,Building,energy');
        assert.ok(lines.length > 3, csv);
        for (const line of lines.slice(1)) assert.match(line, /^\d+,Building (Alpha|Beta|Gamma),\d+$/);
      }

      if (v1) {
        it('Report to chart data: the week of energy per building, as the series of a chart', async () => {
          demoData();
          const flow = await deploy(sim, version, 'Report to chart data.json');
          assertClean(flow);
          await chartOfTheWeek(flow);
          assertClean(flow);
        });

        it('Scheduled report to CSV: built once at deploy, the CSV written to /tmp/report.csv', async () => {
          demoData();
          const file = '/tmp/report.csv';
          const before = fs.existsSync(file) ? fs.readFileSync(file) : undefined;
          try {
            const flow = await deploy(sim, version, 'Scheduled report to CSV.json');
            assertClean(flow);
            const written = await flow.out('written').until(() => true, 15000);
            assertEnergyCsv(String(written.payload));
            assert.equal(fs.readFileSync(file, 'utf8'), written.payload);
            assertClean(flow);
          } finally {
            if (before) fs.writeFileSync(file, before);
            else fs.rmSync(file, { force: true });
          }
        });
      } else {
        it('Report to chart data: as saved, without an analytics URL, the error says to set it', async () => {
          const flow = await deploy(sim, version, 'Report to chart data.json');
          assertClean(flow);
          flow.press('build');
          const caught = await flow.out('error').until(() => true);
          assertCode(caught.error as Rec, 'TB_CONFIG');
          assert.match(String((caught.error as Rec).message), /The connection has no analytics URL/);
          assert.equal(flow.out('chart data').all.length, 0);
          assertClean(flow, [flow.node('energy by building').id]);
        });

        it('Report to chart data: with the analytics URL set, as its comment says, the week of energy per building', async () => {
          demoData();
          const flow = await deploy(sim, version, 'Report to chart data.json', {
            analyticsUrl: `${sim.url}/apiTrendz/`,
          });
          assertClean(flow);
          await chartOfTheWeek(flow);
          assert.equal(flow.out('error').all.length, 0);
          assertClean(flow);
        });

        it('Scheduled report to CSV: as saved, without an analytics URL, the error says to set it and no file is written', async () => {
          const flow = await deploy(sim, version, 'Scheduled report to CSV.json');
          assertClean(flow);
          flow.press('daily at 06:00');
          const caught = await flow.out('error').until(() => true);
          assertCode(caught.error as Rec, 'TB_CONFIG');
          assert.match(String((caught.error as Rec).message), /The connection has no analytics URL/);
          assert.equal(flow.out('written').all.length, 0);
          assert.equal(fs.existsSync(path.join(files, 'energy-report.csv')), false);
          assertClean(flow, [flow.node('daily energy report').id]);
        });

        it('Scheduled report to CSV: with the analytics URL set, the CSV written to energy-report.csv in the working directory', async () => {
          demoData();
          const flow = await deploy(sim, version, 'Scheduled report to CSV.json', {
            analyticsUrl: `${sim.url}/apiTrendz/`,
          });
          assertClean(flow);
          flow.press('daily at 06:00');
          const written = await flow.out('written').until(() => true, 15000);
          assertEnergyCsv(String(written.payload));
          assert.equal(fs.readFileSync(path.join(files, 'energy-report.csv'), 'utf8'), written.payload);
          assert.equal(flow.out('error').all.length, 0);
          assertClean(flow);
        });
      }
    });
  }

  describe('flows saved by 0.2.0: the examples it added', () => {
    const version = '0.2.0';

    it('Acknowledge from a notification: a new critical alarm is told to a person, whose "ack" acknowledges it with a comment', async () => {
      const flow = await deploy(sim, version, 'Acknowledge from a notification.json');
      assertClean(flow);
      const live = flow.node('new critical alarms');
      await statusSeen(live.id, (s) => s.fill === 'green');
      const a101 = sim.data.mustFindByName('DEVICE', 'Thermo A-101');
      const alarm = sim.data.createAlarm({ originator: a101.id, type: 'Overheating', severity: 'CRITICAL' });
      // The subscription sends created alarms only: its first message is this one.
      assert.equal(await firstEvent(live.id), 'created');
      const told = await flow.out('notification').until(() => true);
      assert.equal(told.payload, 'CRITICAL Overheating on Thermo A-101. Reply "ack" to acknowledge it.');
      // The reply comes 5 s later (a delay node stands in for the person).
      const done = await flow.out('acknowledged').until(() => true, 15000);
      assert.deepEqual([done.topic, done.operation, done.alreadyDone], [alarm.id, 'acknowledge', false]);
      assert.equal((done.payload as Rec).acknowledged, true);
      assert.equal(sim.data.getAlarm(alarm.id)?.acknowledged, true);
      // the server's own comment on the acknowledgement, then the one the flow set
      assert.deepEqual(
        sim.data.alarmComments(alarm.id).map((c) => (c.comment as Rec).text),
        ['Alarm was acknowledged by user Tenant Admin', 'Acknowledged by the on-call person from the chat'],
      );
      assert.equal(flow.out('error').all.length, 0);
      assertClean(flow);
    });

    it('Command a device and wait for its answer: the first thermostat answers getState; setFanSpeed persistent to every thermostat, followed to each answer', async () => {
      const flow = await deploy(sim, version, 'Command a device and wait for its answer.json');
      assertClean(flow);
      const first = thermostats()[0];
      assert.equal(first.name, 'Thermo A-101');

      flow.press('ask the first thermostat');
      const reply = await flow.out('reply').until(() => true);
      // The simulated device echoes the call: the change node deleted msg.payload, so the call had no params.
      assert.deepEqual(reply.payload, { method: 'getState', params: null });
      assert.deepEqual(reply.rpc, { method: 'getState', status: 'SUCCESSFUL' });
      assert.deepEqual(
        sim.rpc
          .calls()
          .filter((c) => c.method === 'getState')
          .map((c) => [c.deviceId, c.oneway, c.persistent]),
        [[first.id, false, false]],
      );

      flow.press('fan speed 3 on every thermostat');
      const answers = await flow.out('answers').until(() => true, 15000);
      const list = answers.payload as Rec[];
      assert.equal(answers.failed, 0);
      assert.deepEqual(
        list.map((r) => [r.entity.id, r.ok, r.payload, r.rpc.status]),
        thermostats().map((d) => [d.id, true, { method: 'setFanSpeed', params: { speed: 3 } }, 'SUCCESSFUL']),
      );
      const calls = sim.rpc.calls().filter((c) => c.method === 'setFanSpeed');
      assert.equal(calls.length, 20, 'each thermostat got the command once');
      assert.ok(calls.every((c) => c.persistent && !c.oneway));
      assert.equal(flow.out('error').all.length, 0);
      assertClean(flow);
    });

    it('Count the alarms of the site named in a message: the site found by name, the active alarms of its devices counted; no such site is refused', async () => {
      const flow = await deploy(sim, version, 'Count the alarms of the site named in a message.json');
      assertClean(flow);
      // "at deploy" sets flow.severities (the change node that does it is wired to nothing)
      const setter = helper.getNode(flow.node('severities: CRITICAL, MAJOR').id);
      await waitFor(() => setter.context().flow.get('severities') !== undefined, 5000, 'flow.severities');
      assert.deepEqual(setter.context().flow.get('severities'), ['CRITICAL', 'MAJOR']);
      const counts = flow.out('active alarms of the site');
      const expected = (site: string) => {
        const asset = sim.data.mustFindByName('ASSET', site);
        const inside = new Set<string>();
        const walk = (id: string, level: number) => {
          if (level > 3) return;
          for (const r of sim.data.relationsFrom(id).filter((x) => x.type === 'Contains')) {
            if (r.to.entityType === 'DEVICE') inside.add(r.to.id);
            walk(r.to.id, level + 1);
          }
        };
        walk(asset.id, 1);
        return sim.data
          .alarms()
          .filter((a) => inside.has(a.originator.id) && !a.cleared && ['CRITICAL', 'MAJOR'].includes(a.severity))
          .length;
      };
      for (const site of ['Building Alpha', 'Building Beta']) {
        flow.press(site);
        assert.equal((await counts.until(() => true)).payload, expected(site), site);
      }
      assert.ok(expected('Building Alpha') > 0, 'Building Alpha has active critical or major alarms');
      flow.press('no such site');
      const caught = await flow.out('error').until(() => true);
      assertCode(caught.error as Rec, 'TB_INVALID_INPUT');
      assert.match(
        String((caught.error as Rec).message),
        /rootEntity\.id is bound to msg\.payload\[0\]\.id, which is undefined/,
      );
      assertClean(flow, [flow.node('its active alarms').id]);
    });

    it('Follow the device chosen by a message: idle until a name comes, then a live table of that device, replaced by the next name', async () => {
      const flow = await deploy(sim, version, 'Follow the device chosen by a message.json');
      assertClean(flow);
      const follow = flow.node('the device named in msg.payload');
      assert.deepEqual(lastStatus(follow.id), { fill: 'grey', shape: 'ring', text: key('idle') });
      const shown = flow.out('followed device');
      flow.press('Thermo A-101');
      const first = await shown.until((m) => m.event === 'snapshot');
      assert.equal(await firstEvent(follow.id), 'snapshot', 'its first message');
      assert.deepEqual(
        (first.payload as Rec[]).map((r) => r.name),
        ['Thermo A-101'],
      );
      flow.press('Thermo Lab');
      const next = await shown.until((m) => m.event === 'snapshot');
      assert.deepEqual(
        (next.payload as Rec[]).map((r) => r.name),
        ['Thermo Lab'],
      );
      await waitFor(() => subscriptions(sim) === 1, 5000, 'the first subscription replaced, not added to');
      const lab = sim.data.mustFindByName('DEVICE', 'Thermo Lab');
      sim.data.setTelemetry(lab.id, { temperature: dbl(19.5) });
      const u = await shown.until((m) => m.event === 'update');
      assert.deepEqual([(u.payload as Rec).name, (u.payload as Rec).temperature], ['Thermo Lab', 19.5]);
      assertClean(flow);
    });

    it('Last 24 hours, hourly average: the first thermostat by hour, oldest first, and the data of a line chart', async () => {
      const first = thermostats()[0];
      // Four points an hour over the last day, 21 and 23 °C in turn: every full hour averages 22.
      const now = Date.now();
      for (let k = 1; k <= 95; k++)
        sim.data.setTelemetry(
          first.id,
          { temperature: dbl(k % 2 ? 21 : 23), humidity: long(50) },
          now - k * 15 * 60000,
        );
      const flow = await deploy(sim, version, 'Last 24 hours, hourly average.json');
      assertClean(flow);
      flow.press('every hour');
      const out = await flow.out('rows').until(() => true);
      assert.equal((out.entity as Rec).id, first.id);
      const rows = out.payload as Array<{ ts: number; temperature: number; humidity: number }>;
      assert.ok(rows.length >= 24 && rows.length <= 25, `${rows.length} hourly rows`);
      for (let i = 1; i < rows.length; i++)
        assert.equal(rows[i].ts - rows[i - 1].ts, HOUR, 'an hour apart, oldest first');
      for (const row of rows.slice(1, -1)) assert.deepEqual([row.temperature, row.humidity], [22, 50]);
      const [chart] = plain((await flow.out('chart data').until(() => true)).payload) as Array<Rec>;
      assert.deepEqual([chart.series, chart.labels], [['temperature', 'humidity'], ['']]);
      assert.deepEqual(
        chart.data[0].map((p: Rec) => p.x),
        rows.map((r) => r.ts),
      );
      assert.deepEqual(
        chart.data[1].map((p: Rec) => p.y),
        rows.map(() => 50),
      );
      assert.equal(flow.out('error').all.length, 0);
      assertClean(flow);
    });

    it('Raise an alarm from a flow: above 23 °C an alarm is raised once, back under it is cleared', async () => {
      const flow = await deploy(sim, version, 'Raise an alarm from a flow.json');
      assertClean(flow);
      const live = flow.node('thermostat temperatures');
      await statusSeen(live.id, (s) => s.fill === 'green');
      const results = flow.out('raised / cleared');
      const b201 = sim.data.mustFindByName('DEVICE', 'Thermo B-201');
      sim.data.setTelemetry(b201.id, { temperature: dbl(25.5) });
      // The subscription sends updates only: its first message is this change.
      const raised = await results.until((m) => m.operation === 'raise');
      assert.equal(await firstEvent(live.id), 'update');
      assert.equal(raised.created, true);
      const alarm = sim.data.getAlarm(String(raised.topic))!;
      assert.deepEqual(
        [alarm.type, alarm.severity, alarm.originator.id, alarm.cleared, alarm.details],
        ['Too warm (flow rule)', 'MAJOR', b201.id, false, { temperature: 25.5, limit: 23 }],
      );
      sim.data.setTelemetry(b201.id, { temperature: dbl(26) });
      sim.data.setTelemetry(b201.id, { temperature: dbl(21) });
      const cleared = await results.until((m) => m.operation === 'clear');
      assert.equal(cleared.topic, alarm.id);
      assert.equal(sim.data.getAlarm(alarm.id)?.cleared, true);
      assert.equal(results.all.filter((m) => m.operation === 'raise').length, 1, 'raised once');
      assert.equal(flow.out('error').all.length, 0);
      assertClean(flow);
    });

    it('Record a computed value: a reported temperature and humidity give a dew point saved on the same device', async () => {
      const flow = await deploy(sim, version, 'Record a computed value.json');
      assertClean(flow);
      const live = flow.node('thermostats');
      await statusSeen(live.id, (s) => s.fill === 'green');
      const b203 = sim.data.mustFindByName('DEVICE', 'Thermo B-203');
      sim.data.setTelemetry(b203.id, { temperature: dbl(25), humidity: long(50) });
      const saved = await flow.out('saved').until(() => true);
      assert.equal(await firstEvent(live.id), 'update', 'its first message');
      const [record] = plain(saved.payload) as Array<{ ts: number; values: Rec }>;
      assert.deepEqual(record.values, { dewPoint: 13.9 });
      assert.equal(saved.topic, b203.id, 'the device came from msg.topic');
      const stored = sim.data.latestOf(b203.id, 'dewPoint');
      assert.deepEqual([stored?.type, stored?.value, stored?.ts], ['DOUBLE', 13.9, record.ts]);
      assert.equal(flow.out('error').all.length, 0);
      assertClean(flow);
    });

    it('Reply with the state of the device named in a request: GET /device-state?name=… answers JSON, no name answers 400 with the reason', async () => {
      const flow = await deploy(sim, version, 'Reply with the state of the device named in a request.json');
      assertClean(flow);
      const server = http.createServer((req, res) => (httpNode as http.RequestListener)(req, res));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        let res = await fetch(`${base}/device-state?name=${encodeURIComponent('Thermo A-101')}`);
        assert.equal(res.status, 200);
        const rows = (await res.json()) as Rec[];
        const a101 = sim.data.mustFindByName('DEVICE', 'Thermo A-101');
        assert.deepEqual(
          rows.map((r) => [r.name, r.label, r.temperature, r.humidity]),
          [['Thermo A-101', 'Room 101', temperature(a101.id), sim.data.latestOf(a101.id, 'humidity')?.value]],
        );
        res = await fetch(`${base}/device-state?name=${encodeURIComponent('Thermo A')}`);
        const wing = ((await res.json()) as Rec[]).map((r) => r.name);
        assert.deepEqual(
          wing,
          thermostats()
            .map((d) => d.name)
            .filter((n) => n.startsWith('Thermo A')),
        );
        res = await fetch(`${base}/device-state`);
        assert.equal(res.status, 400);
        assert.match(
          await res.text(),
          /query\.entityFilter\.entityNameFilter is bound to msg\.req\.query\.name, which is undefined/,
        );
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
      assertClean(flow, [flow.node('the device named in the request').id]);
    });

    it('Set the target temperature of every thermostat: the target of the hour saved on every thermostat in one message; one refusal is named', async () => {
      const flow = await deploy(sim, version, 'Set the target temperature of every thermostat.json');
      assertClean(flow);
      const all = thermostats();
      // the example's rule: 21 °C from 7:00 to 22:00, 17 °C at night (the hour may turn while the flow runs)
      const target = () => {
        const hour = new Date().getHours();
        return hour >= 7 && hour < 22 ? 21 : 17;
      };
      const before = target();
      flow.press('every morning at 7');
      const results = await flow.out('results').until(() => true, 15000);
      const expected = sim.data.attributeOf(all[0].id, 'SHARED_SCOPE', 'targetTemperature')?.value;
      assert.ok([before, target()].includes(expected as number), `the target of the hour: ${String(expected)}`);
      assert.equal(results.failed, 0);
      assert.deepEqual(
        (results.payload as Rec[]).map((r) => [r.entity.id, r.ok]),
        all.map((d) => [d.id, true]),
      );
      for (const d of all) {
        assert.equal(sim.data.attributeOf(d.id, 'SHARED_SCOPE', 'targetTemperature')?.value, expected, d.name);
        assert.equal(sim.telemetry.sharedPushes(d.id), 1, `${d.name}: pushed to the device`);
      }
      assert.equal(flow.out('failed').all.length, 0, 'nothing failed');

      // One thermostat refuses (a 403 bare string, as ThingsBoard answers): "which failed?" names it.
      const b101 = sim.data.mustFindByName('DEVICE', 'Thermo B-101');
      sim.faults.add({
        path: `/api/plugins/telemetry/DEVICE/${b101.id}/attributes/SHARED_SCOPE`,
        status: 403,
        body: "You don't have permission to perform this operation!",
      });
      flow.press('every morning at 7');
      const partial = await flow.out('results').until(() => true, 15000);
      assert.equal(partial.failed, 1);
      const lines = plain((await flow.out('failed').until(() => true)).payload) as string[];
      assert.equal(lines.length, 1);
      assert.ok(lines[0].startsWith(`${b101.id}: `), lines[0]);
      assert.match(lines[0], /ThingsBoard answered HTTP 403: You don't have permission to perform this operation!/);
      assert.equal(lastStatus(flow.node('set targetTemperature').id)?.fill, 'yellow');
      assert.equal(flow.out('error').all.length, 0);
      assertClean(flow);
    });
  });
});

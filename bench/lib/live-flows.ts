/** Flow building blocks of the live scenarios (2 and 3): ours, the core websocket flow, the reference node. */
import { benchFlow, FlowNode, functionNode, sink } from './common';

export type Rec = Record<string, unknown>;

/** The ENTITY_DATA command a hand-written client sends (the same as our hub sends for a tb-subscribe). */
export function entityDataCmd(cmdId: number, query: { latestValues?: unknown[] } & Rec): Rec {
  return { type: 'ENTITY_DATA', cmdId, query, latestCmd: { keys: query.latestValues ?? [] } };
}

export function oursSubscribe(id: string, query: unknown, sinkId: string): FlowNode {
  return {
    id,
    type: 'tb-subscribe',
    name: id,
    connection: 'conn',
    kind: 'entityData',
    query: JSON.stringify(query),
    queryType: 'json',
    format: 'flat',
    wires: [[sinkId]],
  };
}

/**
 * What a user wires today: a `websocket-client` config for /api/ws; `websocket in` -> a function node that
 * decodes each frame (one message per entity of an `update` array, payload = key -> value; a `data` page as a
 * snapshot message); the client node cannot send the authCmd by itself, so a `status` node watching the
 * `websocket in` node fires on "connect" a function that sends the authCmd and the commands (10 per frame)
 * through a `websocket out` on the same client config. The core client reconnects by itself (every 3 s).
 */
export function coreLiveFlow(simUrl: string, token: string, cmds: Rec[], sinkId: string): FlowNode[] {
  const frames: Rec[] = [];
  for (let i = 0; i < cmds.length; i += 10) {
    const part = cmds.slice(i, i + 10);
    frames.push(i === 0 ? { authCmd: { cmdId: 0, token }, cmds: part } : { cmds: part });
  }
  const auth =
    `if (!msg.status || msg.status.event !== 'connect') return null;\n` +
    `const frames = ${JSON.stringify(frames)};\n` +
    `return [frames.map((f) => ({ payload: JSON.stringify(f) }))];`;
  const decode =
    `const m = JSON.parse(msg.payload);\n` +
    `if (m.update) {\n` +
    `  return [m.update.map((e) => {\n` +
    `    const p = { id: e.entityId.id };\n` +
    `    for (const t in e.latest) for (const k in e.latest[t]) p[k] = e.latest[t][k].value;\n` +
    `    return { topic: e.entityId.id, event: 'update', payload: p };\n` +
    `  })];\n` +
    `}\n` +
    `if (m.data && m.data.data) return { topic: String(m.cmdId), event: 'snapshot', payload: m.data.data };\n` +
    `return null;`;
  return [
    {
      id: 'core_wsc',
      type: 'websocket-client',
      path: `${simUrl.replace(/^http/, 'ws')}/api/ws`,
      tls: '',
      wholemsg: 'false',
      hb: '0',
      subprotocol: '',
      headers: [],
    },
    { id: 'core_in', type: 'websocket in', name: 'core_in', server: '', client: 'core_wsc', wires: [['core_decode']] },
    functionNode('core_decode', decode, [[sinkId]]),
    { id: 'core_status', type: 'status', name: 'core_status', scope: ['core_in'], wires: [['core_auth']] },
    functionNode('core_auth', auth, [['core_out']]),
    { id: 'core_out', type: 'websocket out', name: 'core_out', server: '', client: 'core_wsc', wires: [] },
  ];
}

export function refLive(id: string, simUrl: string, token: string, cmd: Rec, sinkId: string): FlowNode {
  return {
    id,
    type: 'bench-ref-live',
    name: id,
    url: simUrl,
    cmd: JSON.stringify(cmd),
    credentials: { token },
    wires: [[sinkId]],
  };
}

export function liveFlow(simUrl: string, nodes: FlowNode[]): FlowNode[] {
  return benchFlow(simUrl, nodes);
}

export { sink };

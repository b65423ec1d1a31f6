// Reference live node: its own `ws` socket to /api/ws, the authCmd and one ENTITY_DATA command (the node's
// `cmd`, a JSON string) at open, then one message per entity in each `update` array of a frame
// (msg.payload = the entity's changed `latest` as sent, msg.topic = its id). No validation, formatting,
// state or reconnect.
const WebSocket = require('ws');

/** What the node does with each frame (its own function so that bench/live-path.ts counts the same code). */
function onFrame(node, data) {
  const m = JSON.parse(data.toString());
  if (m.data && m.data.data) node.send({ topic: 'snapshot', event: 'snapshot', payload: m.data.data });
  if (m.update) for (const e of m.update) node.send({ topic: e.entityId.id, event: 'update', payload: e.latest });
}

module.exports = function (RED) {
  function RefLive(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    const ws = new WebSocket(config.url.replace(/^http/, 'ws') + '/api/ws', { perMessageDeflate: false });
    ws.on('open', () =>
      ws.send(JSON.stringify({ authCmd: { cmdId: 0, token: node.credentials.token }, cmds: [JSON.parse(config.cmd)] })),
    );
    ws.on('message', (data) => onFrame(node, data));
    ws.on('error', (err) => node.error(err.message));
    node.on('close', (done) => {
      ws.once('close', () => done());
      ws.terminate();
    });
  }
  RED.nodes.registerType('bench-ref-live', RefLive, { credentials: { token: { type: 'password' } } });
};
module.exports.onFrame = onFrame;

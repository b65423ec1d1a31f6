// The sink of every contender's flow: hands each message to the agent (globalThis.__tbBench.sink) and
// completes it. Same code, same cost, whatever sends to it.
module.exports = function (RED) {
  function BenchSink(config) {
    RED.nodes.createNode(this, config);
    const node = this;
    node.on('input', function (msg, send, done) {
      const hooks = globalThis.__tbBench;
      if (hooks) hooks.sink(node.id, msg);
      done();
    });
  }
  RED.nodes.registerType('bench-sink', BenchSink);
};

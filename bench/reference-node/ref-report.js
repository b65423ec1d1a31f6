// Reference report node: POSTs its body (a JSON string) to <url>publicApi/buildReport with node:http and a
// keep-alive agent; a 429 is sent again after Retry-After (or 1 s); the answer is parsed once and sent.
// No validation, formatting, queue or state.
const http = require('node:http');
module.exports = function (RED) {
  function RefReport(config) {
    RED.nodes.createNode(this, config);
    const node = this,
      url = new URL('publicApi/buildReport', config.url),
      agent = new http.Agent({ keepAlive: true });
    const headers = { 'Content-Type': 'application/json', 'X-Authorization': 'Bearer ' + node.credentials.token };
    const timers = new Set();
    const post = (cb) => {
      const req = http.request(
        { hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            if (res.statusCode === 429) {
              const t = setTimeout(
                () => {
                  timers.delete(t);
                  post(cb);
                },
                (Number(res.headers['retry-after']) || 1) * 1000,
              );
              return timers.add(t);
            }
            try {
              cb(
                res.statusCode === 200 ? null : new Error('HTTP ' + res.statusCode),
                JSON.parse(Buffer.concat(chunks).toString()),
              );
            } catch (e) {
              cb(e);
            }
          });
        },
      );
      req.on('error', cb);
      req.end(config.body);
    };
    node.on('input', (msg, send, done) =>
      post((err, table) => {
        if (err) return done(err);
        msg.payload = table;
        send(msg);
        done();
      }),
    );
    node.on('close', () => {
      for (const t of timers) clearTimeout(t);
      agent.destroy();
    });
  }
  RED.nodes.registerType('bench-ref-report', RefReport, { credentials: { token: { type: 'password' } } });
};

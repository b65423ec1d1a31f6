// Reference query node: POSTs its query (a JSON string, sent as is) with node:http and a keep-alive agent,
// parses the answer once, sends it. allPages: pages until hasNext is false (all items in one message, or one
// message per item with split). No validation, no formatting, no retries.
const http = require('node:http');
module.exports = function (RED) {
  function RefQuery(config) {
    RED.nodes.createNode(this, config);
    const node = this,
      url = new URL(config.url),
      agent = new http.Agent({ keepAlive: true });
    const query = JSON.parse(config.query),
      body = JSON.stringify(query);
    const headers = { 'Content-Type': 'application/json', 'X-Authorization': 'Bearer ' + node.credentials.token };
    const post = (json, cb) => {
      const req = http.request(
        { hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            try {
              cb(null, JSON.parse(Buffer.concat(chunks).toString()));
            } catch (e) {
              cb(e);
            }
          });
        },
      );
      req.on('error', cb);
      req.end(json);
    };
    node.on('input', (msg, send, done) => {
      if (!config.allPages)
        return post(body, (err, page) => {
          if (err) return done(err);
          msg.payload = page;
          send(msg);
          done();
        });
      const all = [];
      const next = (p) =>
        post(JSON.stringify({ ...query, pageLink: { ...query.pageLink, page: p } }), (err, page) => {
          if (err) return done(err);
          if (config.split) for (const item of page.data) send({ ...msg, payload: item });
          else for (const item of page.data) all.push(item);
          if (page.hasNext) return next(p + 1);
          if (!config.split) {
            msg.payload = all;
            send(msg);
          }
          done();
        });
      next(query.pageLink.page || 0);
    });
    node.on('close', () => agent.destroy());
  }
  RED.nodes.registerType('bench-ref-query', RefQuery, { credentials: { token: { type: 'password' } } });
};

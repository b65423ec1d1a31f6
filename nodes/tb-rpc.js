module.exports = require('../dist/nodes/tb-rpc.js').default;

module.exports = require('../dist/nodes/tb-connection.js').default;

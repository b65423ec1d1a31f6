module.exports = require('../dist/nodes/tb-subscribe.js').default;

// Preloaded into supergateway (`node --require loopback_listen.cjs .../supergateway/dist/index.js ...`):
// supergateway 4.0.0 has no option for the address it listens on and binds every interface (`app.listen(port)`).
// The tests must stay on loopback, so a listen() given only a port (and maybe a callback) gets 127.0.0.1.
'use strict';
const net = require('node:net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' && (args.length === 1 || typeof args[1] === 'function')) args.splice(1, 0, '127.0.0.1');
  return listen.apply(this, args);
};

// Preloaded (node --require) into an npm MCP server the tests start over HTTP: a server told to
// listen on a bare port listens on 127.0.0.1 only, never on every interface.
const net = require("net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const bare = ["number", "string"].includes(typeof args[0]) && typeof args[1] !== "string";
  if (bare) args.splice(1, 0, "127.0.0.1");
  return listen.apply(this, args);
};

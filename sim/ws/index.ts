/** The WebSocket API of the simulator (`/api/ws`): see ../README.md, section "WebSocket API". */
export { WsServer } from './server';
export type { WsServerDeps, WsCommandLogEntry, WsConnections, WsSessionInfo } from './server';
export { WsControl, ControlWithWs, WS_CONTROL_PREFIX } from './control';
export { DEFAULT_WS_OPTIONS } from './context';
export type { WsOptions } from './context';
export { burstKeys } from './burst';
export type { BurstOptions, BurstResult } from './burst';

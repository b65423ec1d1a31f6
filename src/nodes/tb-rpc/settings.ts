/** tb-rpc's settings, declared once: the dialog, the runtime and the reference page read them. */
import { durationSetting } from '../../protocol/duration';
import { DEFAULT_RPC_TIMEOUT, MAX_RPC_RETRIES, RPC_MODES, RPC_WAIT_FOR } from '../../protocol/rpc';
import {
  choice,
  connection,
  declareNode,
  duration,
  flag,
  formatted,
  text,
  whole,
  type Values,
} from '../../settings/declare';
import { concurrencySetting } from '../../settings/options';
import { targetSettings } from '../../settings/target';

/** Where the method comes from: the message (msg.method, else msg.topic), fixed text, a msg. property, JSONata. */
export const METHOD_SOURCES = ['auto', 'str', 'msg', 'jsonata'] as const;
export type MethodSource = (typeof METHOD_SOURCES)[number];

/** Where a command's params come from: msg.payload, fixed JSON (`params`), or none. */
export const PARAMS_FROM = ['payload', 'json', 'none'] as const;
export type ParamsFrom = (typeof PARAMS_FROM)[number];

export const TB_RPC = declareNode({
  type: 'tb-rpc',
  inputs: 1,
  outputs: 1,
  version: 3,
  settings: {
    name: text(),
    connection: connection(),
    // Devices only: a bare id is a device's, so there is no type to choose for it.
    ...targetSettings(),
    method: text(),
    methodType: choice(METHOD_SOURCES, 'auto'),
    // msg.payload, as before the setting existed.
    paramsFrom: choice(PARAMS_FROM, 'payload'),
    params: formatted('json', ''),
    // The options of a send: left empty, each reads the message property of its name.
    mode: choice(RPC_MODES, 'twoway', { fromMessage: 'msg.mode' }),
    // The server's own wait (10s), saved as the dialog shows it.
    timeout: duration(durationSetting(DEFAULT_RPC_TIMEOUT), { min: 1 }, { fromMessage: 'msg.timeout' }),
    persistent: flag(false),
    expiration: duration('', { min: 1000, optional: true }, { fromMessage: 'msg.expiration' }),
    retries: whole('', { min: 0, max: MAX_RPC_RETRIES, optional: true }, { fromMessage: 'msg.retries' }),
    additionalInfo: formatted('json', '', { fromMessage: 'msg.additionalInfo' }),
    waitFor: choice(RPC_WAIT_FOR, 'final', { fromMessage: 'msg.waitFor' }),
    concurrency: concurrencySetting(),
  },
});

export type RpcSettings = Values<typeof TB_RPC.settings>;

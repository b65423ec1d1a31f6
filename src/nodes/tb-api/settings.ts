/** tb-api's settings, declared once: the dialog, the runtime and the reference page read them. */
import { API_METHODS, BODY_FROM } from '../../protocol/api-call';
import { choice, connection, declareNode, formatted, text, type Values } from '../../settings/declare';

export const TB_API = declareNode({
  type: 'tb-api',
  inputs: 1,
  outputs: 1,
  version: 1,
  settings: {
    name: text(),
    connection: connection(),
    // Left empty ("from the message"), each reads the message property of its name.
    method: choice(API_METHODS, 'GET', { fromMessage: 'msg.method' }),
    path: text('', { fromMessage: 'msg.path' }),
    query: text('', { fromMessage: 'msg.query' }),
    // msg.payload, fixed JSON or none; a GET sends no body whatever it says.
    bodyFrom: choice(BODY_FROM, 'payload'),
    body: formatted('json', ''),
  },
});

export type ApiSettings = Values<typeof TB_API.settings>;

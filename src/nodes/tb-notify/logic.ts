/**
 * tb-notify's pure logic: what one message sends (the targets, the template or the written subject and text, the
 * delivery methods), checked before anything is sent; what the node outputs. The settings win; what they leave empty
 * comes from the message (msg.targets, msg.template, msg.topic, msg.payload). No I/O, no Node-RED. Every failure is a
 * TbInputError naming where the value was read.
 */
import { TbConfigError, TbInputError } from '../../errors';
import {
  inlineTemplate,
  namedRef,
  prepareMethods,
  prepareTargetRefs,
  type DeliveryMethod,
  type NamedRef,
  type NotificationTemplate,
} from '../../protocol/notifications';
import { got } from '../../protocol/validate';

/** The settings of a send, checked once at deploy (placeholders in the subject and text come per message). */
export interface SendSettings {
  /** The targets named in the node; undefined: msg.targets. */
  targets: NamedRef[] | undefined;
  content: 'text' | 'template';
  /** The template named in the node; undefined: msg.template (content 'template' only). */
  template: NamedRef | undefined;
  methods: DeliveryMethod[];
}

/** Reads the send's settings (field names are the node's property names); a problem is a TbConfigError. */
export function prepareSendSettings(s: {
  targets: unknown;
  content: 'text' | 'template';
  template: unknown;
  methods: unknown;
}): SendSettings {
  try {
    const blankTargets = typeof s.targets !== 'string' || s.targets.trim() === '';
    const blankTemplate = typeof s.template !== 'string' || s.template.trim() === '';
    return {
      targets: blankTargets ? undefined : prepareTargetRefs(s.targets, 'targets'),
      content: s.content,
      template: s.content === 'template' && !blankTemplate ? namedRef(s.template, 'template', 'template') : undefined,
      methods: s.content === 'text' ? prepareMethods(s.methods, 'methods') : [],
    };
  } catch (err) {
    throw err instanceof TbInputError ? new TbConfigError(err.message) : err;
  }
}

/** The targets of this message: the node's, or msg.targets. */
export function messageTargets(settings: SendSettings, msg: Record<string, unknown>): NamedRef[] {
  if (settings.targets) return settings.targets;
  const v = msg.targets;
  if (v === undefined || v === null || v === '')
    throw new TbInputError('msg.targets', 'Pick the targets in the node, or send their names in msg.targets');
  return prepareTargetRefs(v, 'msg.targets');
}

/** The template of this message: the node's, or msg.template. */
export function messageTemplate(settings: SendSettings, msg: Record<string, unknown>): NamedRef {
  if (settings.template) return settings.template;
  const v = msg.template;
  if (v === undefined || v === null || v === '')
    throw new TbInputError('msg.template', 'Pick a template in the node, or send its name in msg.template');
  const r = namedRef(v, 'msg.template', 'template');
  if (!r) throw new TbInputError('msg.template', `msg.template must be a notification template's name or id ${got(v)}`);
  return r;
}

/** A text of the message: a string (a number or boolean as its text); `field` names where it was read. */
function messageText(v: unknown, field: string, what: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === undefined || v === null) return '';
  throw new TbInputError(field, `${field} must be the notification's ${what} as text ${got(v)}`);
}

/**
 * The inline template of a message written in the node: its subject (the node's, placeholders filled in, or
 * msg.topic) and text (the node's, or msg.payload), one entry per delivery method.
 */
export function messageContent(
  settings: SendSettings,
  resolved: { subject: unknown; text: unknown },
  msg: Record<string, unknown>,
): NotificationTemplate {
  const fixedSubject = typeof resolved.subject === 'string' && resolved.subject !== '';
  const fixedText = typeof resolved.text === 'string' && resolved.text !== '';
  const subject = fixedSubject ? String(resolved.subject) : messageText(msg.topic, 'msg.topic', 'subject');
  const text = fixedText ? String(resolved.text) : messageText(msg.payload, 'msg.payload', 'text');
  return inlineTemplate(subject, text, settings.methods, {
    subject: fixedSubject ? 'subject' : 'msg.topic',
    text: fixedText ? 'text' : 'msg.payload',
  });
}

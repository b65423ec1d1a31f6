/**
 * The current user's notifications on `/api/ws` (`SVC/ws/notification/DefaultNotificationCommandsHandler.java`,
 * `sub/NotificationsSubscription.java`): NOTIFICATIONS, the latest `limit` unread WEB notifications and the unread
 * total, and NOTIFICATIONS_COUNT, the unread total alone. Both answer at once (the full list, or the count), then
 * follow the inbox events of the notification center as the server's handler does:
 * - a new notification: the list gets a partial update (`update`), dropping the oldest beyond `limit`; the count +1;
 * - one marked read: re-read and a full update when it was listed, else a count-only update; the count -1;
 * - all marked read: re-read, full update; the count re-read;
 * - one deleted: re-read and full when listed, else -1 if it was unread (count-only);
 * - a request deleted with its notifications: re-read, full update.
 * Every update carries `sequenceNumber`, counted per subscription from 1. Only WEB notifications are ever counted.
 */
import type { InboxEvent, NotificationCenter, SimNotification } from '../../notifications';
import type { Sub, SubHost } from '../context';
import type { NotificationsCountCmd, NotificationsCmd } from '../parse';

function byNewest(a: SimNotification, b: SimNotification): number {
  return b.createdTime - a.createdTime || (a.id < b.id ? 1 : -1);
}

abstract class InboxSub {
  protected stopped = false;
  private sequence = 0;
  private readonly listener = (ev: InboxEvent): void => {
    if (this.stopped || this.host.closed) return;
    if (ev.kind === 'request' ? ev.tenantId !== this.host.caller.tenantId : ev.userId !== this.host.caller.userId)
      return;
    this.onEvent(ev);
  };

  constructor(
    protected readonly host: SubHost,
    readonly cmdId: number,
    protected readonly center: NotificationCenter,
  ) {}

  protected start(): void {
    this.center.on('inbox', this.listener);
  }

  protected nextSequence(): number {
    return ++this.sequence;
  }

  /** The user's unread WEB notifications (of the subscribed types), newest first. */
  protected unread(types: readonly string[] | null): SimNotification[] {
    return this.center
      .inbox(this.host.caller.userId, 'WEB')
      .filter((n) => n.status !== 'READ' && (!types || types.includes(n.type)))
      .sort(byNewest);
  }

  protected abstract onEvent(ev: InboxEvent): void;

  stop(): void {
    this.stopped = true;
    this.center.off('inbox', this.listener);
  }
}

/** NOTIFICATIONS: the latest unread, their total, partial and full updates. */
export class NotificationsSub extends InboxSub implements Sub {
  readonly kind = 'NOTIFICATIONS' as const;
  private readonly latest = new Map<string, SimNotification>();
  private total = 0;
  private limit = 10;
  private types: string[] | null = null;

  handle(cmd: NotificationsCmd): void {
    // the server pages with PageLink(limit): a limit below 1 fails in the repository (INTERNAL_ERROR)
    if (cmd.limit < 1) throw new Error('Page size must not be less than one');
    this.limit = cmd.limit;
    this.types = cmd.types && cmd.types.length > 0 ? cmd.types : null;
    this.fetch();
    this.start();
    this.sendFull();
  }

  private fetch(): void {
    const all = this.unread(this.types);
    this.latest.clear();
    for (const n of all.slice(0, this.limit)) this.latest.set(n.id, { ...n });
    this.total = all.length;
  }

  private sorted(): SimNotification[] {
    return [...this.latest.values()].sort(byNewest);
  }

  private send(notifications: SimNotification[] | null, update: SimNotification | null): void {
    const c = this.center;
    this.host.send(
      `{"cmdId":${this.cmdId},"errorCode":0,"errorMsg":null,` +
        `"notifications":${notifications ? JSON.stringify(notifications.map((n) => c.notificationJson(n))) : 'null'},` +
        `"update":${update ? JSON.stringify(c.notificationJson(update)) : 'null'},` +
        `"totalUnreadCount":${this.total},"sequenceNumber":${this.nextSequence()},"cmdUpdateType":"NOTIFICATIONS"}`,
      this.cmdId,
    );
  }

  private sendFull(): void {
    this.send(this.sorted(), null);
  }

  private typeOf(id: string): string | undefined {
    return this.latest.get(id)?.type ?? this.center.notifications.get(id)?.type;
  }

  protected onEvent(ev: InboxEvent): void {
    switch (ev.kind) {
      case 'created': {
        const n = ev.notification;
        if (this.types && !this.types.includes(n.type)) return;
        this.latest.set(n.id, { ...n });
        this.total++;
        if (this.latest.size > this.limit) for (const x of this.sorted().slice(this.limit)) this.latest.delete(x.id);
        this.send(null, n);
        return;
      }
      case 'read': {
        const type = this.typeOf(ev.id);
        if (this.types && type !== undefined && !this.types.includes(type)) return;
        if (this.latest.has(ev.id)) {
          this.fetch();
          this.sendFull();
        } else {
          this.total--;
          this.send(null, null);
        }
        return;
      }
      case 'allRead':
      case 'request':
        this.fetch();
        this.sendFull();
        return;
      case 'deleted': {
        const n = ev.notification;
        if (this.types && !this.types.includes(n.type)) return;
        if (this.latest.has(n.id)) {
          this.fetch();
          this.sendFull();
        } else if (n.status !== 'READ') {
          this.total--;
          this.send(null, null);
        }
        return;
      }
      default:
        return;
    }
  }
}

/** NOTIFICATIONS_COUNT: the unread WEB total. */
export class NotificationsCountSub extends InboxSub implements Sub {
  readonly kind = 'NOTIFICATIONS_COUNT' as const;
  private total = 0;

  handle(_cmd: NotificationsCountCmd): void {
    this.total = this.unread(null).length;
    this.start();
    this.sendCount();
  }

  private sendCount(): void {
    this.host.send(
      `{"cmdId":${this.cmdId},"errorCode":0,"errorMsg":null,"totalUnreadCount":${this.total},` +
        `"sequenceNumber":${this.nextSequence()},"cmdUpdateType":"NOTIFICATIONS_COUNT"}`,
      this.cmdId,
    );
  }

  protected onEvent(ev: InboxEvent): void {
    switch (ev.kind) {
      case 'created':
        this.total++;
        break;
      case 'read':
        this.total--;
        break;
      case 'allRead':
      case 'request':
        this.total = this.unread(null).length;
        break;
      case 'deleted':
        if (ev.notification.status === 'READ') return;
        this.total--;
        break;
      default:
        return;
    }
    this.sendCount();
  }
}

/**
 * LiveHub's reading in slices (FRAMES_PER_TURN), against the simulator's WebSocket over loopback: a socket paused
 * until the next turn is resumed even when the hub let go of it meanwhile, so that its closing handshake ends.
 */
import assert from 'node:assert/strict';
import { Client } from '../../sim/testkit';
import { LiveHub, type Subscriber, type WsCommand, type WsMessage } from '../../src/live/hub';
import { useSimulator } from '../support/simulator';
import { waitFor } from '../support/wait';

describe('live hub: reading paused for a turn', function () {
  const sim = useSimulator();

  it('a subscriber that unsubscribes the last subscription from within a frame: the paused socket still closes cleanly', async () => {
    const { token } = (await new Client(sim.url).ok('/api/auth/login', {
      username: 'tenant@thingsboard.org',
      password: 'tenant',
    })) as { token: string };
    // Every frame pauses reading until the next turn (1 frame per turn).
    const hub = new LiveHub({ url: sim.url, auth: async () => ({ token }), framesPerTurn: 1 });
    const frames: WsMessage[] = [];
    const sub: Subscriber = {
      unsubscribeType: 'ENTITY_DATA_UNSUBSCRIBE',
      command: (): WsCommand => ({
        type: 'ENTITY_DATA',
        query: {
          entityFilter: { type: 'deviceType', deviceTypes: ['thermostat'] },
          pageLink: { page: 0, pageSize: 10 },
          entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
          latestValues: [],
        },
        latestCmd: { keys: [] },
      }),
      onMessage: (msg: WsMessage) => {
        frames.push(msg);
        hub.unsubscribe(sub); // the socket is paused for this turn, and the hub forgets it now
      },
      onError: () => undefined,
      onState: () => undefined,
    };
    try {
      hub.subscribe(sub);
      await waitFor(() => frames.length === 1, 8000, 'the snapshot');
      assert.ok(hub.stats.pauses >= 1);
      // The server sees the session end once we read its closing frame: at once, not after ws's 30 s close timeout.
      await waitFor(() => sim.ws.connections().open === 0, 5000, 'the socket to close');
    } finally {
      await hub.close(100);
    }
  });
});

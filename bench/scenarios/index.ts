/** The benchmark scenarios, by number (bench/README.md describes each). */
import type { RunOptions, ScenarioResult } from '../lib/common';
import { scenario1 } from './s1-query';
import { scenario2 } from './s2-live';
import { scenario3 } from './s3-scale';
import { scenario4 } from './s4-large';
import { scenario5 } from './s5-reports';
import { scenario6 } from './s6-actions';
import { scenario7 } from './s7-waits';
import { scenario8 } from './s8-triggers';
import { scenario9 } from './s9-entities';

export const SCENARIOS: Record<number, { title: string; run: (o: RunOptions) => Promise<ScenarioResult> }> = {
  1: { title: 'Query throughput and latency', run: scenario1 },
  2: { title: 'Live update throughput', run: scenario2 },
  3: { title: 'Scale: subscriptions on one connection', run: scenario3 },
  4: { title: 'Large results (allPages)', run: scenario4 },
  5: { title: 'Reports against a bounded queue', run: scenario5 },
  6: { title: 'Acting on devices (bulk attribute save, history)', run: scenario6 },
  7: { title: 'Waits: tb-wait-until on one connection', run: scenario7 },
  8: { title: 'Triggers: tb-trigger over a fleet', run: scenario8 },
  9: { title: 'Entities in bulk (tb-entity create or update)', run: scenario9 },
};

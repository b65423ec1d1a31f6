/** The agent's task table: name -> function(args) run inside the agent process. */
import { axiosBulk, axiosHistory, nodeBulk, nodeHistory } from './actions';
import { clientEntities, nodeEntities } from './entities';
import { burst, deployAndWait, dropAndWait, hubStats, rawClose, rawOpen, simWs } from './live';
import { axiosLarge, axiosLoad, nodeLarge, nodeLoad } from './query-load';
import { reportLoad, axiosReports } from './reports';
import { triggerRun } from './triggers';
import { waitsRun } from './waits';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Task = (args: any) => Promise<unknown>;

export const TASKS: Record<string, Task> = {
  nodeLoad,
  axiosLoad,
  nodeLarge,
  axiosLarge,
  deployAndWait,
  rawOpen,
  rawClose,
  burst,
  dropAndWait,
  hubStats,
  simWs,
  reportLoad,
  axiosReports,
  nodeBulk,
  axiosBulk,
  nodeHistory,
  axiosHistory,
  waitsRun,
  triggerRun,
  nodeEntities,
  clientEntities,
};

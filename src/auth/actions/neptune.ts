// Neptune's data-access actions (service prefix neptune-db) for the routes of the graph port.
// https://docs.aws.amazon.com/neptune/latest/userguide/iam-dp-actions.html
import type { Partition } from './types.js';

/**
 * DEVIATION(neptune): Neptune's resource is `arn:aws:neptune-db:<region>:<account>:<cluster-resource-id>/*`;
 * Slipway is one graph, whose cluster resource id is `cluster-slipway`.
 */
export const CLUSTER_RESOURCE_ID = 'cluster-slipway';

export function neptuneResource(p: Partition): string {
  return `arn:aws:neptune-db:${p.region}:${p.accountId}:${CLUSTER_RESOURCE_ID}/*`;
}

/** The action of a graph-port route, or undefined for a route that is not served (answered 400 anyway). */
export function neptuneRouteAction(method: string, path: string, query: URLSearchParams): string | undefined {
  if (path === '/status') return 'neptune-db:GetEngineStatus';
  // Both steps of the fast reset (initiateDatabaseReset, performDatabaseReset) are ResetDatabase.
  if (path === '/system') return 'neptune-db:ResetDatabase';
  if (/^\/loader(\/[^/]+)?$/.test(path)) {
    if (method === 'POST') return 'neptune-db:StartLoaderJob';
    if (method === 'DELETE') return 'neptune-db:CancelLoaderJob';
    return path !== '/loader' || query.has('loadId') ? 'neptune-db:GetLoaderJobStatus' : 'neptune-db:ListLoaderJobs';
  }
  return undefined;
}

/** Actions a Gremlin query needs: reads, writes (addV, addE, property) and deletes (drop). */
export function gremlinActions(kinds: { write: boolean; drop: boolean }): string[] {
  const out: string[] = [];
  if (kinds.drop) out.push('neptune-db:DeleteDataViaQuery');
  if (kinds.write) out.push('neptune-db:WriteDataViaQuery');
  if (out.length === 0) out.push('neptune-db:ReadDataViaQuery');
  return out;
}

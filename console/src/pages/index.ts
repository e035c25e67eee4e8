// The console's pages: each is one module with one component, reached at /console/<path>/…
// Adding a page is one more entry here.
import type { FunctionComponent } from 'preact';
import { EndpointsPage } from './endpoints';
import { ExperimentsPage } from './experiments';
import { GraphPage } from './graph';
import { JobsPage } from './jobs';
import { LineagePage } from './lineage';
import { PipelinesPage } from './pipelines';
import { RegistryPage } from './registry';
import { TuningPage } from './tuning';

export interface PageEntry {
  /** First path segment: /console/<path>/… */
  readonly path: string;
  /** Label in the navigation bar; absent for pages reached only by link. */
  readonly nav?: string;
  readonly component: FunctionComponent;
}

export const PAGES: readonly PageEntry[] = [
  { path: 'registry', nav: 'Model registry', component: RegistryPage },
  { path: 'endpoints', nav: 'Endpoints', component: EndpointsPage },
  { path: 'jobs', nav: 'Jobs', component: JobsPage },
  { path: 'pipelines', nav: 'Pipelines', component: PipelinesPage },
  { path: 'tuning', nav: 'Tuning', component: TuningPage },
  { path: 'lineage', nav: 'Lineage', component: LineagePage },
  { path: 'experiments', nav: 'Experiments', component: ExperimentsPage },
  { path: 'graph', nav: 'Graph', component: GraphPage },
  // Settings (who is signed in) is drawn by the shell itself, which owns sign-out.
  { path: 'settings', component: () => null },
];

export const HOME = 'registry';

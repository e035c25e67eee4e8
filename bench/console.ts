// The console's figures (issue 19): first-load bytes, time to interactive of the registry page
// (10,000 model packages in the account), and the lineage view of an endpoint context with 500
// ascendants, in Debian's headless Chromium against `slipway serve` as its own process.
// Run: npm run build && node dist/bench/console.js [--runs 10]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  AddAssociationCommand,
  CreateActionCommand,
  CreateArtifactCommand,
  CreateContextCommand,
  CreateModelPackageCommand,
  CreateModelPackageGroupCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../test/support/browser.js';
import { slipway } from './support.js';

const { values: args } = parseArgs({
  options: { runs: { type: 'string', default: '10' }, versions: { type: 'string', default: '10000' } },
});
const VERSIONS = Number(args.versions);
const RUNS = Number(args.runs);
const REGION = 'us-east-1';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (xs: number[]) =>
  `median ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;

/** Runs `fn` over 0..n-1 with `limit` calls in flight. */
async function pool(n: number, limit: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

async function seed(sm: SageMakerClient): Promise<string> {
  let t = performance.now();
  // 100 groups, and one of them with 10,000 versions: the registry must page, never load them all.
  await pool(100, 8, (i) =>
    sm.send(new CreateModelPackageGroupCommand({ ModelPackageGroupName: `group-${String(i).padStart(3, '0')}` })),
  );
  const spec = {
    Containers: [
      {
        Image: '683313688378.dkr.ecr.us-east-1.amazonaws.com/sagemaker-xgboost:1.7-1',
        ModelDataUrl: 's3://models/m/model.tar.gz',
      },
    ],
    SupportedContentTypes: ['text/csv'],
    SupportedResponseMIMETypes: ['text/csv'],
  };
  await pool(VERSIONS, 16, () =>
    sm.send(
      new CreateModelPackageCommand({
        ModelPackageGroupName: 'group-099',
        ModelApprovalStatus: 'PendingManualApproval',
        InferenceSpecification: spec,
      }),
    ),
  );
  console.log(`seeded 100 groups, ${VERSIONS} versions in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  // An endpoint context whose ascendants number 500: 20 deployments, each fed by 24 artifacts.
  t = performance.now();
  const endpointArn = `arn:aws:sagemaker:${REGION}:000000000000:endpoint/bench`;
  const { ContextArn } = await sm.send(
    new CreateContextCommand({
      ContextName: 'bench-endpoint',
      ContextType: 'Endpoint',
      Source: { SourceUri: endpointArn },
    }),
  );
  await pool(20, 4, async (a) => {
    const { ActionArn } = await sm.send(
      new CreateActionCommand({
        ActionName: `deploy-${a}`,
        ActionType: 'ModelDeployment',
        Source: { SourceUri: `deploy-${a}` },
      }),
    );
    await sm.send(
      new AddAssociationCommand({
        SourceArn: ActionArn,
        DestinationArn: ContextArn,
        AssociationType: 'AssociatedWith',
      }),
    );
    for (let i = 0; i < 24; i++) {
      const { ArtifactArn } = await sm.send(
        new CreateArtifactCommand({
          ArtifactType: i % 3 === 0 ? 'Image' : 'Model',
          Source: { SourceUri: `s3://models/${a}/${i}/model.tar.gz` },
        }),
      );
      await sm.send(
        new AddAssociationCommand({
          SourceArn: ArtifactArn,
          DestinationArn: ActionArn,
          AssociationType: 'ContributedTo',
        }),
      );
    }
  });
  console.log(`seeded the 500-ascendant lineage in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return ContextArn!;
}

/** Records (in the page) when a selector first matches, against the navigation's time origin. */
const MARK = `(() => {
  const want = window.__want;
  const obs = new MutationObserver(() => {
    if (!window.__ready && document.querySelector(want)) {
      window.__ready = performance.now();
      requestAnimationFrame(() => requestAnimationFrame(() => { window.__painted = performance.now(); }));
      obs.disconnect();
    }
  });
  obs.observe(document, { childList: true, subtree: true, attributes: true });
})()`;

async function timeTo(
  browser: Browser,
  url: string,
  selector: string,
  check?: (page: Page) => Promise<void>,
): Promise<{ ready: number; painted: number; bytes: number; cpu: number }> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
  const page = await context.newPage();
  await page.addInitScript(`window.__want = ${JSON.stringify(selector)}; ${MARK}`);
  // Encoded bytes of the scripts and styles the page loads, as the network saw them.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Performance.enable');
  const kinds = new Map<string, string>();
  let bytes = 0;
  cdp.on('Network.responseReceived', (e) => kinds.set(e.requestId, e.type));
  cdp.on('Network.loadingFinished', (e) => {
    const k = kinds.get(e.requestId);
    if (k === 'Script' || k === 'Stylesheet') bytes += e.encodedDataLength;
  });
  // BENCH_PROFILE=DIR: a CPU profile of the page's main thread (open it in DevTools).
  const profile = process.env.BENCH_PROFILE;
  if (profile) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  await page.goto(url);
  type Marks = { __ready?: number; __painted?: number };
  await page.waitForFunction(() => (globalThis as Marks).__painted !== undefined, undefined, { timeout: 30_000 });
  const r = await page.evaluate(() => ({
    ready: (globalThis as Marks).__ready!,
    painted: (globalThis as Marks).__painted!,
  }));
  // CPU time of the page's main thread (a fresh renderer per context) up to here: what the
  // machine's load does not inflate the way it inflates wall time.
  const { metrics } = await cdp.send('Performance.getMetrics');
  const cpu = (metrics.find((m) => m.name === 'ThreadTime')?.value ?? Number.NaN) * 1000;
  if (profile) {
    const { profile: p } = await cdp.send('Profiler.stop');
    mkdirSync(profile, { recursive: true });
    writeFileSync(
      join(profile, `${new URL(url).pathname.split('/').pop()}-${Date.now()}.cpuprofile`),
      JSON.stringify(p),
    );
  }
  if (check) await check(page);
  const measures = await page.evaluate(() => {
    type Entry = { name: string; startTime: number; duration: number };
    const perf = (globalThis as unknown as { performance: { getEntriesByType(t: string): Entry[] } }).performance;
    return [
      ...perf.getEntriesByType('mark').map((m) => `${m.name} at ${m.startTime.toFixed(0)} ms`),
      ...perf.getEntriesByType('measure').map((m) => `${m.name} +${m.duration.toFixed(0)} ms`),
    ];
  });
  if (measures.length && process.env.BENCH_VERBOSE) console.log(`  ${measures.join(', ')}`);
  await context.close();
  return { ...r, bytes, cpu };
}

const dataDir = mkdtempSync(join(tmpdir(), 'slipway-console-bench-'));
const server = await slipway(dataDir, ['--log-level', 'warn', '--default-region', REGION]);
const base = `http://127.0.0.1:${server.port}`;
const sm = new SageMakerClient({
  endpoint: base,
  region: REGION,
  credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
});
const browser = await launchChromium();
try {
  const contextArn = await seed(sm);
  const registry = `${base}/console/registry`;
  const versions = `${base}/console/registry/group-099`;
  const lineage = `${base}/console/lineage?arn=${encodeURIComponent(contextArn)}&direction=Ascendants&depth=3`;
  await timeTo(browser, registry, 'tbody tr'); // warm the server's caches once

  const first = await timeTo(browser, registry, 'tbody tr');
  console.log(`first load: ${(first.bytes / 1024).toFixed(1)} KB of JavaScript and CSS on the wire (brotli)`);
  const groupsTti: number[] = [];
  const versionsTti: number[] = [];
  const lineageReady: number[] = [];
  const lineageCpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    groupsTti.push((await timeTo(browser, registry, 'tbody tr')).painted);
    versionsTti.push((await timeTo(browser, versions, '.pager button:not([disabled])')).painted);
    // Rendered: every entity read and drawn on the canvas (the view counts what it drew).
    const drawn = '.lineage-body:has(.lineage-summary[data-status="ready"]) canvas[data-drawn-nodes="501"]';
    const r = await timeTo(browser, lineage, drawn, async (page) => {
      const summary = await page.locator('.lineage-summary').innerText();
      if (!summary.startsWith('501 entities')) throw new Error(`lineage page shows: ${summary}`);
    });
    lineageReady.push(r.painted);
    lineageCpu.push(r.cpu);
  }
  console.log(`registry page (100 groups), cold browser cache, to rows painted: ${fmt(groupsTti)}`);
  console.log(`versions page (10,000 versions, 25 per page, each described), to rows painted: ${fmt(versionsTti)}`);
  console.log(
    `lineage of an endpoint with 500 ascendants (11 QueryLineage pages, graph laid out and drawn): ${fmt(lineageReady)}`,
  );
  console.log(`  the same, main-thread CPU of the page to that point: ${fmt(lineageCpu)}`);
} finally {
  await browser.close();
  sm.destroy();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

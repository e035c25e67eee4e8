// Which trial components belong to which trials (AssociateTrialComponent).
// https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_AssociateTrialComponent.html
import type { Partition } from '../../domain/arn.js';
import type { Queryable, SqlValue } from '../db/types.js';

export class LineageTrialMemberRepository {
  async add(q: Queryable, trialArn: string, componentArn: string, at: number): Promise<void> {
    await q.run(`INSERT INTO lineage_trial_members (trial_arn, component_arn, created_at) VALUES (?, ?, ?)`, [
      trialArn,
      componentArn,
      at,
    ]);
  }

  async remove(q: Queryable, trialArn: string, componentArn: string): Promise<boolean> {
    const r = await q.run(`DELETE FROM lineage_trial_members WHERE trial_arn = ? AND component_arn = ?`, [
      trialArn,
      componentArn,
    ]);
    return r.changes > 0;
  }

  async has(q: Queryable, trialArn: string, componentArn: string): Promise<boolean> {
    const row = await q.get(`SELECT 1 AS x FROM lineage_trial_members WHERE trial_arn = ? AND component_arn = ?`, [
      trialArn,
      componentArn,
    ]);
    return row !== undefined;
  }

  async countForTrial(q: Queryable, trialArn: string): Promise<number> {
    const row = await q.get<{ n: number }>(`SELECT COUNT(*) AS n FROM lineage_trial_members WHERE trial_arn = ?`, [
      trialArn,
    ]);
    return Number(row?.n ?? 0);
  }

  async countForComponent(q: Queryable, componentArn: string): Promise<number> {
    const row = await q.get<{ n: number }>(`SELECT COUNT(*) AS n FROM lineage_trial_members WHERE component_arn = ?`, [
      componentArn,
    ]);
    return Number(row?.n ?? 0);
  }

  /** The trials (name and JSON document) each of several components belongs to, oldest association first. */
  async trialsOfMany(
    q: Queryable,
    componentArns: readonly string[],
  ): Promise<Array<{ component_arn: string; name: string; doc: string }>> {
    const out: Array<{ component_arn: string; name: string; doc: string }> = [];
    for (let i = 0; i < componentArns.length; i += 500) {
      const chunk = componentArns.slice(i, i + 500);
      out.push(
        ...(await q.all<{ component_arn: string; name: string; doc: string }>(
          `SELECT m.component_arn AS component_arn, t.name AS name, t.doc AS doc
           FROM lineage_trial_members m JOIN lineage_entities t ON t.arn = m.trial_arn
           WHERE m.component_arn IN (${chunk.map(() => '?').join(', ')}) ORDER BY m.component_arn, m.created_at, m.trial_arn`,
          chunk,
        )),
      );
    }
    return out;
  }

  /** Sub-select of the ARNs of components in a trial (for LineageEntityRepository.list arnIn). */
  componentsOfTrial(trialArn: string): { sql: string; params: SqlValue[] } {
    return { sql: 'SELECT component_arn FROM lineage_trial_members WHERE trial_arn = ?', params: [trialArn] };
  }

  /** Sub-select of the ARNs of components in any trial of an experiment. */
  componentsOfExperiment(p: Partition, experimentKey: string): { sql: string; params: SqlValue[] } {
    return {
      sql: `SELECT m.component_arn FROM lineage_trial_members m JOIN lineage_entities t ON t.arn = m.trial_arn
            WHERE t.account_id = ? AND t.region = ? AND t.kind = 'experiment-trial' AND t.parent_key = ?`,
      params: [p.accountId, p.region, experimentKey],
    };
  }

  /** Sub-select of the ARNs of trials a component belongs to. */
  trialsOfComponent(componentArn: string): { sql: string; params: SqlValue[] } {
    return { sql: 'SELECT trial_arn FROM lineage_trial_members WHERE component_arn = ?', params: [componentArn] };
  }
}

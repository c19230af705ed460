import type { Client } from '@temporalio/client';
import { eventually, useTestApi } from '../support/harness';
import { SUBMIT, jobPath, waitForStatus } from '../jobs/support';
import { brandCaller, confirmPin, freshPhone } from '../signup/signup-helpers';
import { pinReservationWorkflowId } from '../../workflows/pin-reservation-api';
import { jobIndexWorkflowId } from '../../workflows/jobs-signals';

// Jobs leave their indexing to the follow-up index workflow here, so each has a child run whose attributes count.
const ctx = useTestApi({ JOB_INDEX_DURING_JOB: 'false' });

/** The workflow ids and types a visibility query finds, once it finds at least `atLeast` runs. */
async function found(temporal: Client, query: string, atLeast: number) {
  return eventually(
    async () => {
      const runs: { id: string; type: string }[] = [];
      for await (const run of temporal.workflow.list({ query })) runs.push({ id: run.workflowId, type: run.type });
      return runs.length >= atLeast ? runs : undefined;
    },
    20_000,
    250,
    `${atLeast} runs for ${query}`,
  );
}

describe('search attributes', () => {
  it("find a client's runs by client, job type and brand, children included", async () => {
    const { api, admin } = ctx;
    const temporal = api.rt.engines.temporal;
    // The service registered them on start (the devstack's dev server has them too).
    await eventually(async () => (api.rt.engines.searchAttributes.ready ? true : undefined));

    const agent = await brandCaller(api, admin, 'Acme Attributes');
    const clientId = agent.client.client_id as string;
    const submitted = await api.call('POST', SUBMIT, {
      token: agent.token,
      body: { query: 'bakery', country_code: 'NL', region_codes: ['NL-UT'], max_locations: 1 },
    });
    expect(submitted.status).toBe(200);
    const jobId = submitted.body.job_id as string;
    await waitForStatus(api, agent.token, jobPath(jobId), ['completed']);

    const jobs = await found(temporal, `LeadClientId="${clientId}" AND LeadJobType="maps-scrape"`, 2);
    expect(jobs).toEqual(
      expect.arrayContaining([
        { id: jobId, type: 'mapsScrapeWorkflow' },
        { id: jobIndexWorkflowId(jobId), type: 'jobIndexWorkflow' }, // a child, with its parent's attributes
      ]),
    );

    const reserved = await confirmPin(api, agent, { name: 'ATTRIBUTED', identifier: freshPhone() });
    expect(reserved.status).toBe(202);
    const byBrand = await found(temporal, `LeadClientId="${clientId}" AND LeadBrandId="${agent.brandId}"`, 1);
    expect(byBrand).toEqual([{ id: pinReservationWorkflowId('NL:ATTRIBUTED'), type: 'pinReservationWorkflow' }]);

    // Another client's runs are not among them.
    const everyRunOfTheClient = await found(temporal, `LeadClientId="${clientId}"`, 3);
    const other = await found(temporal, `LeadClientId="someone-else"`, 0);
    expect(other).toEqual([]);
    expect(everyRunOfTheClient.map((r) => r.id)).toEqual(expect.arrayContaining([jobId, jobIndexWorkflowId(jobId)]));
  });
});

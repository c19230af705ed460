import inspector from 'node:inspector/promises';
import fs from 'node:fs';
import { approvedAgentToken, bareServer, benchClient, load, withBenchApi } from './support';
async function profiled(name: string, url: string, headers: Record<string, string>) {
  await load(url, headers);
  const s = new inspector.Session(); s.connect();
  await s.post('Profiler.enable'); await s.post('Profiler.start');
  const f = await load(url, headers);
  const { profile } = await s.post('Profiler.stop');
  fs.writeFileSync(`/tmp/prof/${name}.cpuprofile`, JSON.stringify(profile));
  console.log(name, f);
}
async function main() {
  await withBenchApi('prof', { ACCESS_REQUEST_RATE_PER_HOUR: '0' }, async (api) => {
    const { client, triple } = await benchClient(api, 'Bench Agents', 'bench@agents.example', { brand: true });
    const agent = await approvedAgentToken(api, client.client_id, 'dev@agents.example');
    const path = process.env.PROF_PATH ?? '/api/v1/dashboard/me';
    const token = path.includes('pat') ? agent : triple;
    const body = await (await fetch(api.url + path, { headers: { authorization: `Bearer ${token}` } })).json();
    const bare = await bareServer({ '/x': body });
    await profiled('ours', api.url + path, { authorization: `Bearer ${token}` });
    await profiled('bare', bare.url + '/x', {});
    bare.close();
  });
}
main().then(() => process.exit(0));

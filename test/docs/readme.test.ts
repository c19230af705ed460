import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

describe('the README', () => {
  it("names every area module in its architecture section's diagram", () => {
    const architecture = readme.slice(
      readme.indexOf('## Architecture'),
      readme.indexOf('\n## ', readme.indexOf('## Architecture') + 1),
    );
    const areas = fs
      .readdirSync(path.join(root, 'src'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && fs.existsSync(path.join(root, 'src', d.name, `${d.name}.module.ts`)))
      .map((d) => d.name);
    expect(areas.length).toBeGreaterThan(15);
    const diagram = architecture.slice(architecture.indexOf('services.ts'), architecture.indexOf('each src/<area>'));
    expect(areas.filter((area) => !new RegExp(`\\b${area}\\b`).test(diagram))).toEqual([]);
  });

  it('cites only files the repository holds', () => {
    const pages = fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md'));
    const docs = ['README.md', ...pages.map((f) => `docs/${f}`)];
    const missing = docs.flatMap((doc) => {
      const text = fs.readFileSync(path.join(root, doc), 'utf8');
      const links = [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
        .map((m) => m[1])
        .filter((l) => !/^[a-z]+:/.test(l));
      return links.filter((l) => !fs.existsSync(path.resolve(root, path.dirname(doc), l))).map((l) => `${doc}: ${l}`);
    });
    expect(missing).toEqual([]);
  });
});

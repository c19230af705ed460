import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MAX_PAGE_CHARS, extractPage } from '../../src/research/extract';
import { MAX_PAGE_BYTES, createResearchProvider } from '../../src/providers/research';
import { renderPage, siteFor } from '../../src/sandbox/research-site';

const PAGE = 'https://acme.test/';
const SIZE = 100_000;
/** A page of exactly SIZE characters: `head`, then `unit` repeated, then `tail`. */
const repeat = (unit: string, tail = '', head = '') =>
  head + unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE - head.length - tail.length) + tail;

/**
 * Pages built to make backtracking patterns take quadratic (or worse) time: long runs a pattern can start
 * at every position of and only fail at the end, and openings whose closing never comes.
 */
const HOSTILE: [string, string][] = [
  ['dotted words without an @ (e-mail local part)', repeat('a.')],
  ['a@a.a.a.a… without a top-level domain', repeat('a.', '1', 'a@')],
  ['aaaa…@ without a domain', repeat('a', '@')],
  ['a@a@a@… (every @ an e-mail start)', repeat('a@')],
  ['<script without its end', repeat('<script')],
  ['<script> openings without </script>', repeat('<script>')],
  ['<style x= without >', repeat('<style x=')],
  ['< without >', repeat('<')],
  ['<script type=application/ld+json> without </script>', repeat('<script type="application/ld+json">')],
  ['<title> without </title>', repeat('<title>')],
  ['<meta name=description without >', repeat('<meta name="description" content="')],
  ['microdata names without >', repeat('itemprop="name"', '', '<div itemtype="https://schema.org/Person">')],
  ['microdata names without a next tag', repeat('itemprop="name">x', '', '<div itemtype="https://schema.org/Person">')],
  ['href= with runs of spaces', repeat(`href${' '.repeat(200)}`)],
  ['phone-like digit runs', repeat('+1 23 45 67 89 ')],
  ['phone-like single digits', repeat('+1 2 3 4 5 ')],
  ['deeply nested JSON-LD', `<script type="application/ld+json">${'['.repeat(SIZE / 2 - 50)}</script>`],
  ['registry keywords', repeat('registration number kvk ')],
  ['entities without ;', repeat('&#x1f600')],
  ['© with a legal-form look-alike', repeat('© 2024 Aaaa B.V')],
];

/**
 * What separates a linear scan from a backtracking one, not a speed target: a linear pass over 100 kB takes
 * milliseconds (tens on a loaded CI machine), a quadratic one 10^10 steps, which is tens of seconds. The bound
 * sits between the two with room on both sides, so a busy machine cannot fail it and a catastrophic pattern
 * cannot pass it.
 */
const LINEAR_BOUND_MS = 2_000;

describe('extractPage on hostile pages', () => {
  it.each(HOSTILE)('reads 100 kB of %s in linear time', (_name, html) => {
    expect(html.length).toBeLessThanOrEqual(SIZE);
    const started = performance.now();
    extractPage(html, PAGE);
    expect(performance.now() - started).toBeLessThan(LINEAR_BOUND_MS);
  });

  it('reads only the first MAX_PAGE_CHARS of a page, so patterns never see more', () => {
    const early = '<a href="mailto:early@acme.test">early@acme.test</a> ';
    const late = '<a href="mailto:late@acme.test">late@acme.test</a>';
    const html = early + 'x'.repeat(MAX_PAGE_CHARS) + late;
    const started = performance.now();
    expect(extractPage(html, PAGE).emails).toEqual(['early@acme.test', 'early@acme.test']);
    expect(performance.now() - started).toBeLessThan(LINEAR_BOUND_MS);
  });

  it('reads a numeric reference past the last code point as U+FFFD, and keeps a tel: link with a broken escape', () => {
    // As the HTML standard decodes them (htmlparser2 and entities): never a thrown RangeError.
    expect(extractPage('<title>A &#99999999; B &#x110000; C &amp; D</title>', PAGE).title).toBe(
      'A \uFFFD B \uFFFD C & D',
    );
    expect(extractPage('<a href="tel:+31%E0%A4%A">call</a>', PAGE).phones).toEqual(['+31%E0%A4%A']);
  });
});

describe('extractPage on ordinary pages', () => {
  it('finds what the sandbox company website holds', () => {
    const domain = 'golden-bakery-1a2b.example';
    const site = siteFor(domain);
    const home = extractPage(renderPage(domain, '/')!, `https://${domain}/`);
    expect(home).toMatchObject({
      title: `${site.name} — Welcome`,
      legalName: site.legalName,
      registrationNumber: site.registrationNumber,
      emails: [site.emails[0], site.emails[0]],
      phones: [site.phones[0].replace(/ /g, ''), site.phones[0]],
      linkedin: [{ url: site.linkedinCompany.replace('https://www.', 'https://www.'), kind: 'company' }],
      links: [`https://${domain}/team`, `https://${domain}/contact`],
    });
    const team = extractPage(renderPage(domain, '/team')!, `https://${domain}/team`);
    expect(team.people).toEqual(
      site.people.map((p) => ({ name: p.name, title: p.title, email: p.email, linkedin: p.linkedin })),
    );
    expect(new Set(team.emails)).toEqual(new Set(site.people.map((p) => p.email)));
  });

  it('reads e-mail addresses, titles, descriptions and JSON-LD as the patterns did', () => {
    const html = `<html><head><TITLE lang="en">Acme &amp; Sons</TITLE>
<meta property="og:x" name="description" data-x="1" content="We bake &quot;bread&quot;">
<script>var s = "<title>not this</title> no@mail.test";</script><style>p{}</style>
<script type="application/ld+json">{"@type":"Organization","legalName":"Acme Holding B.V.","taxID":"NL-123"}</script>
<script type="application/ld+json">{broken</script></head>
<body><p>Mail Jan.de-Vries+sales@mail.acme.co.uk, info@acme.nl. or x@y.z1 and test@acme.nl,
a@b@c.com and logo@2x.png</p>
<p>Call +31 (0)20 123 4567</p><p>< not a tag <> either</p></body></html>`;
    const x = extractPage(html, PAGE);
    expect(x.title).toBe('Acme & Sons');
    expect(x.description).toBe('We bake "bread"');
    expect(x.legalName).toBe('Acme Holding B.V.');
    expect(x.registrationNumber).toBe('NL-123');
    expect(x.emails).toEqual(['jan.de-vries+sales@mail.acme.co.uk', 'info@acme.nl', 'b@c.com']);
    expect(x.phones).toEqual(['+31 (0)20 123 4567']);
  });

  it('decodes every named and numeric character reference, in text, attributes and JSON-LD strings', () => {
    const html = `<title>Caf&eacute; M&uuml;ller &ndash; &euro;5 &hellip; &#x1F950; &#8212; &copy 2024</title>
<meta name="description" content="Br&ouml;tchen &amp; Kaffee">
<a href="mailto:info&#64;cafe-mueller.de">mail</a>
<script type="application/ld+json">{"@type":"Organization","legalName":"Caf&eacute; M&uuml;ller GmbH"}</script>
<div itemscope itemtype="https://schema.org/Person"><span itemprop="name">Jos&eacute; &Aacute;lvarez</span>
<span itemprop="jobTitle">Ma&icirc;tre &amp; owner</span></div>`;
    const x = extractPage(html, PAGE);
    expect(x.title).toBe('Café Müller – €5 … 🥐 — © 2024');
    expect(x.description).toBe('Brötchen & Kaffee');
    expect(x.emails).toContain('info@cafe-mueller.de');
    expect(x.legalName).toBe('Café Müller GmbH');
    expect(x.people).toEqual([{ name: 'José Álvarez', title: 'Maître & owner', email: null, linkedin: null }]);
  });

  it('reads what a script, a style or a comment holds as no text of the page', () => {
    const html = `<p>Mail real@acme.test</p><script>var a = "hidden@acme.test";</script>
<style>.x:after{content:"styled@acme.test"}</style><!-- commented@acme.test --><p>+31 20 123 4567</p>`;
    const x = extractPage(html, PAGE);
    expect(x.emails).toEqual(['real@acme.test']);
    expect(x.phones).toEqual(['+31 20 123 4567']);
  });
});

describe('the research provider', () => {
  it('reads at most MAX_PAGE_BYTES of a page and drops the rest unread', async () => {
    let sent = 0;
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const more = () => {
        while (sent < 64 * MAX_PAGE_BYTES) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => res.destroy());
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const research = createResearchProvider({ baseUrl: `http://127.0.0.1:${port}`, timeoutMs: 10_000 });
      const page = await research.fetchPage(PAGE);
      expect(page!.html.length).toBe(MAX_PAGE_BYTES);
      expect(sent).toBeLessThan(8 * MAX_PAGE_BYTES);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

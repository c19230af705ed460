import type { Page } from '@playwright/test';
import sharp from 'sharp';
import {
  apiCall,
  createTenant,
  expect,
  expectAccessibleInBothThemes,
  navLink,
  signIn,
  SUPER_ADMIN,
  test,
  type Tenant,
} from './support/fixtures';

let tenant: Tenant;
test.beforeAll(async () => {
  tenant = await createTenant('Content', { contentDomain: true });
});

const content = (path: string) => `/api/v1/dashboard/content/${path}`;
/** The public read of a post, as the client's site asks for it (its content domain in X-Content-Domain). */
async function publicPost(slug: string) {
  return fetch(`${process.env.E2E_BASE_URL}/api/v1/content/posts/${slug}?format=html`, {
    headers: { 'x-content-domain': tenant.contentDomains[0] },
  });
}

/** Sets the scene through the API: an author, a tag and a category of the tenant. */
async function scene(suffix: string) {
  const author = await apiCall('POST', content('authors'), tenant.triple, { full_name: `Writer ${suffix}` });
  const tag = await apiCall('POST', content('tags'), tenant.triple, { name: `Tag ${suffix}` });
  const category = await apiCall('POST', content('categories'), tenant.triple, { name: `Category ${suffix}` });
  return { author, tag, category };
}

/** The body the console sent when it saved the post (what the editor's getJSON() gave). */
function savedBody(page: Page, method: 'POST' | 'PATCH') {
  return page
    .waitForRequest((r) => r.method() === method && /\/dashboard\/content\/posts(?:\/[\w-]+)?$/.test(r.url()))
    .then((r) => r.postDataJSON() as { body: unknown; slug: string });
}

test('authors, tags and categories are created, edited and deleted in their sections', async ({ page }) => {
  await signIn(page, tenant.user, '/console/jobs');
  await navLink(page, 'Content').click();
  await expect(page).toHaveURL(/\/console\/content\/posts$/);
  const sections = page.getByRole('navigation', { name: 'Content sections' });

  await sections.getByRole('link', { name: 'Authors' }).click();
  await page.getByRole('button', { name: 'New author' }).click();
  await page.getByLabel('Full name').fill('Marieke de Vries');
  await page.getByLabel('Role').selectOption('editor');
  await page.getByRole('button', { name: 'Create the author' }).click();
  await expect(page.getByRole('table', { name: 'Authors' }).getByText('marieke-de-vries')).toBeVisible();

  await sections.getByRole('link', { name: 'Tags' }).click();
  await expect(page).toHaveURL(/\/console\/content\/tags/);
  await page.getByRole('button', { name: 'New tag' }).click();
  await page.getByLabel('Slug').fill('Not A Slug');
  await page.getByLabel('Name').fill('Opening hours');
  await page.getByRole('button', { name: 'Create the tag' }).click();
  await expect(page.getByRole('dialog').getByRole('alert')).toContainText('Lower-case letters');
  await page.getByLabel('Slug').fill('');
  await page.getByRole('button', { name: 'Create the tag' }).click();
  const tags = page.getByRole('table', { name: 'Tags' });
  await expect(tags.getByText('opening-hours')).toBeVisible();
  await page.getByRole('button', { name: 'Edit Opening hours' }).click();
  await page.getByLabel('Description').fill('When the shop is open');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(tags.getByText('When the shop is open')).toBeVisible();
  await expectAccessibleInBothThemes(page);

  await sections.getByRole('link', { name: 'Categories' }).click();
  await page.getByRole('button', { name: 'New category' }).click();
  await page.getByLabel('Name').fill('Bakery news');
  await page.getByRole('button', { name: 'Create the category' }).click();
  const categories = page.getByRole('table', { name: 'Categories' });
  await expect(categories.getByText('bakery-news')).toBeVisible();
  await page.getByRole('button', { name: 'Delete Bakery news' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(categories.getByText('bakery-news')).toBeHidden();

  const listed = await apiCall('GET', content('tags'), tenant.triple);
  expect(listed.tags).toEqual(
    expect.arrayContaining([expect.objectContaining({ slug: 'opening-hours', description: 'When the shop is open' })]),
  );
  const authors = await apiCall('GET', content('authors'), tenant.triple);
  expect(authors.authors).toEqual(
    expect.arrayContaining([expect.objectContaining({ slug: 'marieke-de-vries', role: 'editor' })]),
  );
  expect((await apiCall('GET', content('categories'), tenant.triple)).categories).toEqual(
    expect.not.arrayContaining([expect.objectContaining({ slug: 'bakery-news' })]),
  );
});

test('a post written with the toolbar and the keyboard is stored as the document written, published, previewed as the public site renders it, and unpublished', async ({
  page,
}) => {
  const { author, tag, category } = await scene('post');
  await signIn(page, tenant.user, '/console/content/posts/new');
  await expect(page.getByRole('heading', { name: 'New post', level: 1 })).toBeVisible();
  await expectAccessibleInBothThemes(page);

  await page.getByLabel('Title').fill('Spring opening hours');
  await expect(page.getByLabel('Slug')).toHaveValue('spring-opening-hours');

  const body = page.getByRole('textbox', { name: 'Body' });
  const toolbar = page.getByRole('toolbar', { name: 'Formatting' });
  await body.click();
  // A heading from the toolbar, bold from the keyboard, a list from the toolbar, a link from Ctrl-K.
  await toolbar.getByRole('button', { name: 'Heading 2' }).click();
  await expect(toolbar.getByRole('button', { name: 'Heading 2' })).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.type('New hours');
  await page.keyboard.press('Enter');
  await page.keyboard.type('From April we open at ');
  await page.keyboard.press('Control+b');
  await expect(toolbar.getByRole('button', { name: 'Bold' })).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.type('7:00');
  await page.keyboard.press('Control+b');
  await page.keyboard.type('.');
  await page.keyboard.press('Enter');
  await toolbar.getByRole('button', { name: 'Bulleted list' }).click();
  await page.keyboard.type('Bread');
  await page.keyboard.press('Enter');
  await page.keyboard.type('Cakes');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await page.keyboard.type('Read our menu');
  for (let i = 0; i < 'menu'.length; i++) await page.keyboard.press('Shift+ArrowLeft');
  await page.keyboard.press('Control+k');
  await page.getByLabel('Link address').fill('https://example.com/menu');
  await page.getByLabel('Link address').press('Enter');
  await expect(body.getByRole('link', { name: 'menu' })).toBeVisible();

  await page.getByLabel('Author').selectOption(author.id);
  await page.getByRole('checkbox', { name: tag.name }).check();
  await page.getByRole('checkbox', { name: category.name }).check();
  await page.getByLabel('Cover image address').fill('https://cdn.example.com/covers/spring.webp');
  await expect(page.getByRole('note')).toContainText('Content-Security-Policy');
  await page.getByLabel('Cover image description (alt text)').fill('Fresh bread');

  const sent = savedBody(page, 'POST');
  await page.getByRole('button', { name: 'Save draft' }).click();
  const written = await sent;
  await expect(page).toHaveURL(/\/console\/content\/posts\/[0-9a-f-]{36}$/);
  const postId = page.url().split('/').pop()!;

  // What the API stores is the document the editor wrote.
  const stored = await apiCall('GET', content(`posts/${postId}`), tenant.triple);
  expect(stored.body).toEqual(written.body);
  expect(stored).toMatchObject({
    status: 'draft',
    slug: 'spring-opening-hours',
    author: { id: author.id },
    tags: [tag.name],
    categories: [{ id: category.id }],
    cover_image_url: 'https://cdn.example.com/covers/spring.webp',
    featured_image_alt: 'Fresh bread',
  });
  const [heading, paragraph, list, linked] = stored.body.content;
  expect(heading).toMatchObject({ type: 'heading', attrs: { level: 2 }, content: [{ text: 'New hours' }] });
  expect(paragraph.content).toEqual([
    { type: 'text', text: 'From April we open at ' },
    { type: 'text', text: '7:00', marks: [{ type: 'bold' }] },
    { type: 'text', text: '.' },
  ]);
  expect(list.type).toBe('bulletList');
  expect(
    list.content.map((item: { content: { content: { text: string }[] }[] }) => item.content[0].content[0].text),
  ).toEqual(['Bread', 'Cakes']);
  expect(linked.content[1]).toMatchObject({
    text: 'menu',
    marks: [{ type: 'link', attrs: { href: 'https://example.com/menu' } }],
  });
  expect((await publicPost('spring-opening-hours')).status).toBe(404);

  // A draft's preview: the public renderer's HTML of the saved draft.
  await page.getByRole('button', { name: 'Show the preview' }).click();
  const preview = page.getByRole('article', { name: 'Rendered post' });
  await expect(preview.getByRole('heading', { name: 'New hours' })).toBeVisible();
  await expect(preview.locator('strong')).toHaveText('7:00');

  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  await expect(page.getByText('Published', { exact: true }).first()).toBeVisible();
  await expect(page.getByText(`Rendered by the public read for ${tenant.contentDomains[0]}.`)).toBeVisible();
  const served = await publicPost('spring-opening-hours');
  expect(served.status).toBe(200);
  const { body_html } = (await served.json()) as { body_html: string };
  expect(body_html).toContain('<h2>New hours</h2>');
  // The preview draws exactly the HTML the public read answers (parsed and serialised by the browser alike).
  const drawn = await preview.locator('div').first().innerHTML();
  const expected = await page.evaluate((html) => {
    const t = document.createElement('template');
    t.innerHTML = html;
    return t.innerHTML;
  }, body_html);
  expect(drawn).toBe(expected);

  await page.getByRole('button', { name: 'Unpublish', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Publish', exact: true })).toBeVisible();
  await expect.poll(async () => (await publicPost('spring-opening-hours')).status).toBe(404);
  expect((await apiCall('GET', content(`posts/${postId}`), tenant.triple)).status).toBe('draft');

  // The list shows it among the drafts, filtered in the URL.
  await page.goto('/console/content/posts?status=draft');
  await expect(
    page.getByRole('table', { name: 'Posts' }).getByRole('link', { name: 'Spring opening hours' }),
  ).toBeVisible();
  await page.getByLabel('Status').selectOption('published');
  await expect(page).toHaveURL(/status=published/);
  await expect(page.getByText('No post matches these filters')).toBeVisible();
  await page.goBack();
  await expect(page.getByLabel('Status')).toHaveValue('draft');
  await expectAccessibleInBothThemes(page);
});

test('a post is written and saved with the keyboard alone', async ({ page }) => {
  await signIn(page, tenant.user, '/console/content/posts/new');
  await expect(page.getByRole('heading', { name: 'New post', level: 1 })).toBeVisible();
  // From the top of the page, Tab reaches the title.
  const focused = () => page.evaluate(() => document.activeElement?.id ?? '');
  for (let i = 0; i < 40 && (await focused()) !== 'post-title'; i++) await page.keyboard.press('Tab');
  expect(await focused()).toBe('post-title');
  await page.keyboard.type('Keyboard only');
  await page.keyboard.press('Tab');
  expect(await focused()).toBe('post-slug');
  await page.keyboard.press('Tab'); // the toolbar: one stop
  await expect(page.getByRole('button', { name: 'Bold' })).toBeFocused();
  await page.keyboard.press('Tab'); // the editor
  expect(await focused()).toBe('post-body');
  await page.keyboard.press('Control+Alt+2');
  await page.keyboard.type('Typed');
  await page.keyboard.press('Enter');
  await page.keyboard.type('Plain and ');
  await page.keyboard.press('Control+b');
  await page.keyboard.type('strong');
  await page.keyboard.press('Escape'); // leaves the editor
  await page.keyboard.press('Tab');
  expect(await focused()).toBe('post-excerpt');
  const sent = savedBody(page, 'POST');
  await page.keyboard.press('Control+s');
  const written = await sent;
  await expect(page).toHaveURL(/\/console\/content\/posts\/[0-9a-f-]{36}$/);
  const stored = await apiCall('GET', content(`posts/${page.url().split('/').pop()}`), tenant.triple);
  expect(stored.body).toEqual(written.body);
  expect(stored.body.content[0]).toMatchObject({ type: 'heading', attrs: { level: 2 }, content: [{ text: 'Typed' }] });
  expect(stored.body.content[1].content[1]).toEqual({ type: 'text', text: 'strong', marks: [{ type: 'bold' }] });
  expect(stored.slug).toBe('keyboard-only');
});

test('a page is written with two blocks, reordered with the buttons, saved, published and deleted', async ({
  page,
}) => {
  await signIn(page, tenant.user, '/console/content/pages');
  await page.getByRole('link', { name: 'New page' }).click();
  await page.getByLabel('Title').fill('About us');
  await expect(page.getByLabel('Slug')).toHaveValue('about-us');
  await page.getByLabel('New block type').selectOption('hero');
  await page.getByRole('button', { name: 'Add block' }).click();
  await page.getByLabel('Heading', { exact: true }).fill('Baking since 1952');
  await page.getByLabel('New block type').selectOption('text');
  await page.getByRole('button', { name: 'Add block' }).click();
  await page.getByLabel('Text (Markdown)').fill('A family bakery.');
  await expectAccessibleInBothThemes(page);

  // The text block moves up with the keyboard; the focus stays with it.
  await page.getByRole('button', { name: 'Move block 2 (Text) up' }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('button', { name: 'Move block 1 (Text) down' })).toBeFocused();
  await expect(page.getByRole('group').first()).toContainText('Block 1: Text');

  await page.getByRole('button', { name: 'Save draft' }).click();
  await expect(page).toHaveURL(/\/console\/content\/pages\/[0-9a-f-]{36}$/);
  const pageId = page.url().split('/').pop()!;
  const stored = await apiCall('GET', content(`pages/${pageId}`), tenant.triple);
  expect(stored.blocks).toEqual([
    { type: 'text', data: { markdown: 'A family bakery.' } },
    { type: 'hero', data: { heading: 'Baking since 1952' } },
  ]);

  await page.getByRole('button', { name: 'Publish', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Unpublish', exact: true })).toBeVisible();
  const read = await fetch(`${process.env.E2E_BASE_URL}/api/v1/content/pages/about-us`, {
    headers: { 'x-content-domain': tenant.contentDomains[0] },
  });
  expect(((await read.json()) as { blocks: unknown[] }).blocks).toEqual(stored.blocks);

  // Deleted after a confirmation naming it: gone from the dashboard and from the public site.
  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  const confirm = page.getByRole('dialog', { name: 'Delete this page?' });
  await expect(confirm).toContainText(stored.title);
  await confirm.getByRole('button', { name: 'Delete the page' }).click();
  await expect(page).toHaveURL(/\/console\/content\/pages(\?|$)/);
  const gone = await fetch(`${process.env.E2E_BASE_URL}/api/v1/content/pages/about-us`, {
    headers: { 'x-content-domain': tenant.contentDomains[0] },
  });
  expect(gone.status).toBe(404);
});

test('the content pages work at phone width', async ({ page }) => {
  await signIn(page, tenant.user, '/console/content/posts');
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByRole('table', { name: 'Posts' })).toBeVisible();
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(await overflow()).toBeLessThanOrEqual(0);
  await page.getByRole('link', { name: 'New post' }).click();
  await expect(page.getByRole('toolbar', { name: 'Formatting' })).toBeVisible();
  expect(await overflow()).toBeLessThanOrEqual(0);
  await page.goto('/console/content/pages/new');
  await page.getByRole('button', { name: 'Add block' }).click();
  expect(await overflow()).toBeLessThanOrEqual(0);
});

test("a super_admin acting for the client manages the client's content", async ({ page }) => {
  const { tag } = await scene('admin');
  await signIn(page, SUPER_ADMIN, '/console/content/tags');
  await page.getByLabel('Acting for').selectOption({ label: tenant.name });
  const tags = page.getByRole('table', { name: 'Tags' });
  await expect(tags.getByText(tag.slug)).toBeVisible();
  await page.getByRole('button', { name: `Edit ${tag.name}` }).click();
  const saved = page.waitForRequest((r) => r.method() === 'PATCH' && r.url().endsWith(`/tags/${tag.id}`));
  await page.getByLabel('Description').fill('Set by the operator');
  await page.getByRole('button', { name: 'Save' }).click();
  expect((await saved).headers()['x-selected-client-id']).toBe(tenant.clientId);
  await expect(tags.getByText('Set by the operator')).toBeVisible();
});

test("a cover uploaded from the computer is previewed at once, saved as this service's image and served to anyone", async ({
  page,
}) => {
  const cspViolations: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) cspViolations.push(message.text());
  });
  const isMediaUpload = (r: { method(): string; url(): string }) =>
    r.method() === 'POST' && r.url().endsWith('/api/v1/dashboard/content/media');
  const cover = await sharp({ create: { width: 800, height: 450, channels: 3, background: '#e0a030' } })
    .png()
    .toBuffer();
  const inline = await sharp({ create: { width: 120, height: 80, channels: 3, background: '#3060c0' } })
    .jpeg()
    .toBuffer();

  await signIn(page, tenant.user, '/console/content/posts/new');
  await page.getByLabel('Title').fill('Cover story');
  const uploaded = page.waitForResponse((r) => isMediaUpload(r.request()));
  await page.getByLabel('Upload a cover').setInputFiles({ name: 'cover.png', mimeType: 'image/png', buffer: cover });
  // The chosen file shows at once, from memory (a blob: URL the CSP allows), decoded.
  const preview = page.getByTestId('cover-preview');
  await expect(preview).toHaveAttribute('src', /^blob:/);
  await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(800);
  const answer = await uploaded;
  expect(answer.status()).toBe(201);
  const media = (await answer.json()) as { media_id: string; url: string; width: number; height: number };
  expect(media).toMatchObject({ width: 800, height: 450, content_type: 'image/webp' });
  expect(new URL(media.url).origin).toBe(new URL(process.env.E2E_BASE_URL!).origin);
  await expect(page.getByLabel('Cover image address')).toHaveValue(media.url);
  await page.getByLabel('Cover image description (alt text)').fill('A golden loaf');
  await expect(page.getByRole('img', { name: 'A golden loaf' })).toBeVisible();
  await expectAccessibleInBothThemes(page);

  // The body's image button takes an upload too: the image goes in by its address on this service.
  await page.getByRole('textbox', { name: 'Body' }).click();
  await page.getByRole('toolbar', { name: 'Formatting' }).getByRole('button', { name: 'Image' }).click();
  const inlineUploaded = page.waitForResponse((r) => isMediaUpload(r.request()) && r.status() === 201);
  await page
    .getByLabel('Or upload an image')
    .setInputFiles({ name: 'loaf.jpg', mimeType: 'image/jpeg', buffer: inline });
  const inlineMedia = (await (await inlineUploaded).json()) as { url: string };
  const bodyImage = page.getByRole('textbox', { name: 'Body' }).locator('img');
  await expect(bodyImage).toHaveAttribute('src', inlineMedia.url);
  await expect.poll(() => bodyImage.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(120);

  await page.getByRole('button', { name: 'Save draft' }).click();
  await expect(page).toHaveURL(/\/console\/content\/posts\/[0-9a-f-]{36}$/);
  const stored = await apiCall('GET', content(`posts/${page.url().split('/').pop()}`), tenant.triple);
  expect(stored.cover_image_url).toBe(media.url);
  expect(stored.cover_image_url).toContain(`/api/v1/content/media/${media.media_id}/`);
  expect(stored.body.content).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ type: 'image', attrs: expect.objectContaining({ src: inlineMedia.url }) }),
    ]),
  );

  // Anyone reads the cover: no credential, no content domain; the image as stored, cached for good.
  const served = await fetch(stored.cover_image_url);
  expect(served.status).toBe(200);
  expect(served.headers.get('content-type')).toBe('image/webp');
  expect(served.headers.get('cache-control')).toContain('immutable');
  expect(await sharp(Buffer.from(await served.arrayBuffer())).metadata()).toMatchObject({
    format: 'webp',
    width: 800,
    height: 450,
  });

  // The saved post shows its cover from this origin.
  const saved = page.getByRole('img', { name: 'A golden loaf' });
  await expect(saved).toHaveAttribute('src', media.url);
  await expect.poll(() => saved.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(800);
  expect(cspViolations).toEqual([]);
});

test("a page's image block takes an uploaded image by its address on this service", async ({ page }) => {
  const photo = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#40a060' } })
    .png()
    .toBuffer();
  await signIn(page, tenant.user, '/console/content/pages/new');
  await page.getByLabel('Title').fill('Our shop');
  await page.getByLabel('New block type').selectOption('image');
  await page.getByRole('button', { name: 'Add block' }).click();
  const uploaded = page.waitForResponse(
    (r) => r.request().method() === 'POST' && r.url().endsWith('/api/v1/dashboard/content/media'),
  );
  await page
    .getByLabel('Upload the image of block 1 (Image)')
    .setInputFiles({ name: 'shop.png', mimeType: 'image/png', buffer: photo });
  const media = (await (await uploaded).json()) as { url: string };
  await expect(page.getByLabel('Image address')).toHaveValue(media.url);
  await page.getByLabel('Description (alt text)').fill('The shop front');
  await expectAccessibleInBothThemes(page);
  await page.getByRole('button', { name: 'Save draft' }).click();
  await expect(page).toHaveURL(/\/console\/content\/pages\/[0-9a-f-]{36}$/);
  const stored = await apiCall('GET', content(`pages/${page.url().split('/').pop()}`), tenant.triple);
  expect(stored.blocks).toEqual([{ type: 'image', data: { url: media.url, alt: 'The shop front' } }]);
  expect((await fetch(media.url)).status).toBe(200);
});

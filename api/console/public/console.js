// The console page: the server-side session's HttpOnly cookie (nothing secret in the page or its
// storage), and every read and action through the console's tRPC router.
import { startAuthentication, startRegistration } from '@simplewebauthn/browser'
import { createTRPCClient, httpBatchLink } from '@trpc/client'

const $ = (selector) => document.querySelector(selector)
const client = createTRPCClient({ links: [httpBatchLink({ url: '/internal/trpc' })] })

const fmtDate = (iso) => (iso ? new Date(iso).toLocaleString() : '–')
const cell = (text) => {
  const td = document.createElement('td')
  td.textContent = text
  return td
}
const row = (...cells) => {
  const tr = document.createElement('tr')
  for (const c of cells) tr.append(c instanceof Node ? c : cell(String(c)))
  return tr
}

async function renderAccount() {
  const [me, billing] = await Promise.all([client.me.query(), client.billing.query()])
  $('#who').textContent = `${me.login}${me.email ? ` · ${me.email}` : ''} · ${me.plan}`
  $('#balance').textContent = billing.balance.toLocaleString()
  $('#frozen').hidden = !billing.frozen
  $('#lots tbody').replaceChildren(
    ...billing.lots.map((l) => row(l.kind, l.credits, l.remaining, fmtDate(l.expires_at))),
  )
  $('#ledger tbody').replaceChildren(
    ...billing.entries.map((e) => row(fmtDate(e.created_at), e.kind, e.amount, e.tool ?? '', e.job_id ?? '')),
  )
}

async function renderKeys() {
  const keys = await client.keys.list.query()
  $('#keys tbody').replaceChildren(
    ...keys.map((k) => {
      const revoke = document.createElement('button')
      revoke.textContent = 'Revoke'
      revoke.dataset.keyId = k.id
      revoke.addEventListener('click', async () => {
        await client.keys.revoke.mutate({ id: k.id })
        await renderKeys()
      })
      const actions = document.createElement('td')
      actions.append(revoke)
      const tr = row(k.name, k.prefix, fmtDate(k.created_at), fmtDate(k.last_used_at), actions)
      tr.dataset.keyId = k.id
      return tr
    }),
  )
}

async function renderApps() {
  const apps = await client.connectedApps.list.query()
  $('#apps tbody').replaceChildren(
    ...apps.map((a) => {
      const disconnect = document.createElement('button')
      disconnect.textContent = 'Disconnect'
      disconnect.addEventListener('click', async () => {
        await client.connectedApps.revoke.mutate({ id: a.id })
        await renderApps()
      })
      const actions = document.createElement('td')
      actions.append(disconnect)
      const tr = row(
        a.client_name,
        a.redirect_host,
        a.scopes.join(' '),
        fmtDate(a.connected_at),
        fmtDate(a.last_used_at),
        actions,
      )
      tr.dataset.appId = a.id
      return tr
    }),
  )
}

function button(label, onClick) {
  const element = document.createElement('button')
  element.textContent = label
  element.addEventListener('click', onClick)
  return element
}

function showSecret(secret) {
  $('#new-webhook-secret').textContent = secret
  $('#new-webhook').hidden = false
}

async function renderDeliveries(endpoint) {
  const deliveries = await client.webhooks.deliveries.query({ id: endpoint.id })
  $('#deliveries-url').textContent = endpoint.url
  $('#deliveries tbody').replaceChildren(
    ...deliveries.map((d) => {
      const actions = document.createElement('td')
      if (endpoint.status === 'enabled')
        actions.append(
          button('Send again', async () => {
            await client.webhooks.redeliver.mutate({ id: endpoint.id, delivery: d.id })
            await renderDeliveries(endpoint)
          }),
        )
      return row(
        fmtDate(d.created_at),
        d.type,
        d.status,
        d.attempts,
        d.last_status_code ?? d.last_error ?? '',
        actions,
      )
    }),
  )
  $('#deliveries').hidden = false
}

async function renderWebhooks() {
  const endpoints = await client.webhooks.list.query()
  $('#webhooks tbody').replaceChildren(
    ...endpoints.map((endpoint) => {
      const actions = document.createElement('td')
      actions.append(
        button('Deliveries', () => renderDeliveries(endpoint)),
        button('Rotate secret', async () =>
          showSecret((await client.webhooks.rotate.mutate({ id: endpoint.id })).secret),
        ),
        button('Delete', async () => {
          await client.webhooks.remove.mutate({ id: endpoint.id })
          $('#deliveries').hidden = true
          await renderWebhooks()
        }),
      )
      // A disabled endpoint says why, in the row itself: deliveries to it have stopped.
      const status =
        endpoint.status === 'disabled'
          ? `Disabled ${fmtDate(endpoint.disabled_at)}: ${endpoint.disabled_reason}`
          : 'Enabled'
      const tr = row(endpoint.url, endpoint.events.join(', '), status, actions)
      tr.dataset.endpointId = endpoint.id
      tr.classList.toggle('disabled', endpoint.status === 'disabled')
      return tr
    }),
  )
}

async function renderCatalog() {
  const catalog = await client.catalog.query()
  if (!catalog.available) {
    $('#catalog').textContent = 'Purchases are not available on this server.'
    return
  }
  $('#catalog').replaceChildren(
    ...catalog.items.map((item) => {
      const box = document.createElement('div')
      box.className = 'catalog-item'
      const buy = document.createElement('button')
      buy.textContent = `Buy · $${item.priceUsd}`
      buy.addEventListener('click', async () => {
        try {
          const { url } = await client.checkout.mutate({ item: item.id, requestId: crypto.randomUUID() })
          window.location.assign(url)
        } catch (error) {
          $('#checkout-message').textContent = error.message
        }
      })
      box.append(`${item.name} (${item.kind === 'bundle' ? 'monthly' : 'once'}) `, buy)
      return box
    }),
  )
}

async function renderJobs() {
  const { jobs } = await client.jobs.list.query({ limit: 20 })
  $('#jobs tbody').replaceChildren(
    ...jobs.map((job) => {
      const outputs = document.createElement('td')
      for (const file of job.result?.files ?? []) {
        const link = document.createElement('a')
        link.href = file.url
        link.textContent = file.name
        outputs.append(link, ' ')
      }
      if (job.error) outputs.append(`${job.error.code}: ${job.error.message}`)
      return row(fmtDate(job.created_at), job.tool, job.status, job.credits_charged ?? '–', outputs)
    }),
  )
}

async function renderPasskeys() {
  const passkeys = await client.passkeys.query()
  $('#passkeys tbody').replaceChildren(
    ...passkeys.map((p) => row(`…${p.id.slice(-8)}`, fmtDate(p.created_at), fmtDate(p.last_used_at))),
  )
}

/** Links to each configured provider's sign-in; `extra` is added to their query (invitation, return_to). */
function providerLinks(methods, verb, extra) {
  const links = []
  const query = new URLSearchParams(extra).toString()
  const link = (path, name) => {
    const a = document.createElement('a')
    a.href = `/console/auth/${path}/start${query ? `?${query}` : ''}`
    a.textContent = `${verb} ${name}`
    a.dataset.provider = path
    links.push(a)
  }
  if (methods.github) link('github', 'GitHub')
  for (const provider of methods.oidc) link(`oidc/${provider.id}`, provider.name)
  return links
}

let methods = { signup: 'open', github: false, oidc: [] }

async function showApp() {
  $('#signin-panel').hidden = true
  $('#app').hidden = false
  $('#sign-out').hidden = false
  $('#link-providers').replaceChildren(...providerLinks(methods, 'Link', { return_to: '/console' }))
  await Promise.all([
    renderAccount(),
    renderKeys(),
    renderApps(),
    renderWebhooks(),
    renderCatalog(),
    renderJobs(),
    renderPasskeys(),
  ])
}

/** Where to go once signed in: a path on this origin only (never `//host`), else the console. */
function returnTo() {
  const value = new URLSearchParams(window.location.search).get('return_to') ?? ''
  return /^\/(?![/\\])/.test(value) ? value : '/console'
}

function signedIn() {
  const target = returnTo()
  if (window.location.pathname === '/console/sign-in' && target !== '/console') window.location.assign(target)
  else if (window.location.pathname !== '/console') window.location.assign('/console')
  else void showApp()
}

async function post(path, body) {
  return fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

/** The error message of a failed JSON answer, for the person. */
async function problemOf(response) {
  const { error } = await response.json().catch(() => ({ error: null }))
  return error?.message ?? `The server answered ${response.status}.`
}

/** The passkey ceremony the browser runs; a dismissed prompt is not an error worth shouting about. */
async function ceremony(run) {
  try {
    return await run()
  } catch (error) {
    throw new Error(error?.name === 'NotAllowedError' ? 'The passkey prompt was closed.' : error.message)
  }
}

async function passkeySignUp() {
  $('#signin-error').textContent = ''
  try {
    const options = await post('/console/auth/passkey/register-options', {
      login: $('#signup-login').value.trim(),
      invitation: $('#signup-invitation').value.trim(),
      return_to: returnTo(),
    })
    if (!options.ok) throw new Error(await problemOf(options))
    const answer = await ceremony(async () => startRegistration({ optionsJSON: await options.json() }))
    const done = await post('/console/auth/passkey/register', answer)
    if (!done.ok) throw new Error(await problemOf(done))
    signedIn()
  } catch (error) {
    $('#signin-error').textContent = error.message
  }
}

async function passkeySignIn() {
  $('#signin-error').textContent = ''
  try {
    const options = await post('/console/auth/passkey/authenticate-options', { return_to: returnTo() })
    if (!options.ok) throw new Error(await problemOf(options))
    const answer = await ceremony(async () => startAuthentication({ optionsJSON: await options.json() }))
    const done = await post('/console/auth/passkey/authenticate', answer)
    if (!done.ok) throw new Error(await problemOf(done))
    signedIn()
  } catch (error) {
    $('#signin-error').textContent = error.message
  }
}

async function addPasskey() {
  $('#methods-message').textContent = ''
  try {
    const options = await post('/console/auth/passkey/register-options', {})
    if (!options.ok) throw new Error(await problemOf(options))
    const answer = await ceremony(async () => startRegistration({ optionsJSON: await options.json() }))
    const done = await post('/console/auth/passkey/register', answer)
    if (!done.ok) throw new Error(await problemOf(done))
    $('#methods-message').textContent = 'Passkey added.'
    await renderPasskeys()
  } catch (error) {
    $('#methods-message').textContent = error.message
  }
}

function showSignIn() {
  const invite = methods.signup === 'invite'
  $('#signin-panel').hidden = false
  $('#provider-sign-in').replaceChildren(...providerLinks(methods, 'Sign in with', { return_to: returnTo() }))
  $('#signup-box').hidden = methods.signup === 'closed'
  $('#signup-closed').hidden = methods.signup !== 'closed'
  $('#signup-invitation').hidden = !invite
  if (invite) $('#signup-note').textContent = 'Sign-up is by invitation: enter the code you were given.'
  const renderSignUpLinks = () =>
    $('#provider-sign-up').replaceChildren(
      ...providerLinks(methods, 'Sign up with', {
        return_to: returnTo(),
        ...(invite ? { invitation: $('#signup-invitation').value.trim() } : {}),
      }),
    )
  renderSignUpLinks()
  $('#signup-invitation').addEventListener('input', renderSignUpLinks)
}

async function signInWithToken(token) {
  const response = await post('/console/session', { token })
  if (!response.ok) {
    const { error } = await response.json().catch(() => ({ error: null }))
    $('#signin-error').textContent =
      error?.code === 'forbidden'
        ? 'That is an API key; sign in with a console token.'
        : 'That token was not accepted.'
    return
  }
  $('#token').value = ''
  $('#signin-error').textContent = ''
  signedIn()
}

$('#signin-form').addEventListener('submit', (event) => {
  event.preventDefault()
  void signInWithToken($('#token').value.trim())
})

$('#sign-out').addEventListener('click', async () => {
  await post('/console/sign-out', {})
  window.location.assign('/console')
})

$('#key-form').addEventListener('submit', async (event) => {
  event.preventDefault()
  $('#key-error').textContent = ''
  try {
    const created = await client.keys.create.mutate({ name: $('#new-key-name').value.trim() })
    $('#new-key-secret').textContent = created.key
    $('#new-key').hidden = false
    $('#new-key-name').value = ''
    await renderKeys()
  } catch (error) {
    $('#key-error').textContent = error.message
  }
})

$('#webhook-form').addEventListener('submit', async (event) => {
  event.preventDefault()
  $('#webhook-error').textContent = ''
  try {
    const created = await client.webhooks.create.mutate({ url: $('#new-webhook-url').value.trim() })
    showSecret(created.secret)
    $('#new-webhook-url').value = ''
    await renderWebhooks()
  } catch (error) {
    $('#webhook-error').textContent = error.message
  }
})

$('#passkey-sign-in').addEventListener('click', () => void passkeySignIn())
$('#signup-form').addEventListener('submit', (event) => {
  event.preventDefault()
  void passkeySignUp()
})
$('#add-passkey').addEventListener('click', () => void addPasskey())

// Which sign-in methods this server offers, then: already signed in (the cookie is sent with every
// request)? Straight to the console; otherwise the sign-in screen.
fetch('/console/auth/methods')
  .then((response) => response.json())
  .then((answer) => {
    methods = answer
  })
  .catch(() => {})
  .finally(() => client.me.query().then(signedIn, showSignIn))

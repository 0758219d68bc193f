import { Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { LabelledHistogram } from '../../app/labelled-histogram.ts'

const buckets = [0.001, 0.01, 0.1, 1]
const observations: [string, string, number][] = [
  ['GET', '200', 0.0004],
  ['GET', '200', 0.001],
  ['GET', '200', 0.05],
  ['GET', '404', 3],
  ['POST', '202', 0.02],
  ['GET', '200', 0.0011],
  ['POST', '202', Number.NaN],
]

describe('LabelledHistogram', () => {
  it('renders exactly what prom-client renders for the same observations', async () => {
    const ours = new Registry()
    const theirs = new Registry()
    const histogram = new LabelledHistogram('t_seconds', 'Latency.', ['method', 'status'], buckets, ours)
    const reference = new Histogram({
      name: 't_seconds',
      help: 'Latency.',
      labelNames: ['method', 'status'],
      buckets,
      registers: [theirs],
    })
    for (const [method, status, value] of observations) {
      histogram.series({ method, status }).observe(value)
      if (Number.isFinite(value)) reference.observe({ method, status }, value)
    }
    const text = await ours.metrics()
    expect(text).toContain('t_seconds_bucket{le="0.001",method="GET",status="200"} 2')
    expect(text).toContain('t_seconds_count{method="POST",status="202"} 1')
    expect(text).toBe(await theirs.metrics())
  })

  it('hands out one series per label values, and reset forgets them', async () => {
    const registry = new Registry()
    const histogram = new LabelledHistogram('r_seconds', 'R.', ['route'], buckets, registry)
    expect(histogram.series({ route: '/a' })).toBe(histogram.series({ route: '/a' }))
    histogram.series({ route: '/a' }).observe(0.5)
    expect(await registry.metrics()).toContain('r_seconds_count{route="/a"} 1')
    registry.resetMetrics()
    expect(await registry.metrics()).not.toContain('r_seconds_count')
  })
})

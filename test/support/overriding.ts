// A stand-in for an object that replaces some of its members and passes the rest through, bound to
// the object itself (so classes with private fields still work): how tests count the calls a piece
// of code makes on a store without changing the store.
export function overriding<T extends object>(target: T, own: Record<string, unknown>): T {
  return new Proxy(target, {
    get(object, key) {
      if (typeof key === 'string' && Object.hasOwn(own, key)) return own[key]
      const value = Reflect.get(object, key, object)
      return typeof value === 'function' ? value.bind(object) : value
    },
  })
}

// A confirmed payment of the processor, linked to the account and lot it paid for, so later
// disputes and refunds (which name only the payment) find what to claw back.

export type PaymentEvent = {
  type: 'PaymentLinked'
  data: {
    paymentRef: string
    accountId: string
    lotId: string
    credits: number
    amountCents: number
    at: string
  }
}

export const paymentStream = (paymentRef: string) => `payment-${paymentRef}`

/** Processor events already handled: a replayed webhook finds its stream and does nothing. */
export const webhookStream = (eventId: string) => `webhook-${eventId}`

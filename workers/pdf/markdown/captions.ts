// Captions: a line opening with "Figure 3:", "Fig. 2.", "Table 1 —" (or the German, French, Spanish
// and Italian words) is a caption. It becomes a block of its own, so it stays beside its figure or
// table, and is never run into the body text around it or read as a table row. The number must be
// followed by a separator: "Table 3 shows that …" at the start of a line is body text.

const captionPattern =
  /^(?:Figure|Fig\.|Table|Tab\.|Abbildung|Abb\.|Tabelle|Tableau|Tabla|Figura|Tabella)\s*\d+(?:[.-]\d+)*[a-z]?\s*(?:[:.|—–-]|$)/u

export const isCaption = (text: string): boolean => captionPattern.test(text)

/** Captions are set in italics; asterisks of their own are escaped so the emphasis holds. */
export const renderCaption = (text: string): string => `*${text.replace(/\*/g, '\\*')}*`

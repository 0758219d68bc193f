//! Glyph name → Unicode, following the rules of the Adobe Glyph List specification:
//! a table of the names used by the standard Latin, Symbol and TeX fonts, then the algorithmic
//! forms `uniXXXX`, `uXXXX[XX]`, ligature names joined by `_`, and suffixes after a period
//! (`a.sc` is an `a`). The table is written for this crate, sorted so lookups binary-search.

#[rustfmt::skip]
static NAMES: &[(&str, &str)] = &[
    ("A", "A"), ("AE", "Æ"), ("Aacute", "Á"), ("Abreve", "Ă"), ("Acircumflex", "Â"), ("Adieresis", "Ä"),
    ("Agrave", "À"), ("Alpha", "Α"), ("Amacron", "Ā"), ("Aogonek", "Ą"), ("Aring", "Å"), ("Atilde", "Ã"),
    ("B", "B"), ("Beta", "Β"), ("C", "C"), ("Cacute", "Ć"), ("Ccaron", "Č"), ("Ccedilla", "Ç"),
    ("Ccircumflex", "Ĉ"), ("Cdotaccent", "Ċ"), ("Chi", "Χ"), ("D", "D"), ("Dcaron", "Ď"), ("Dcroat", "Đ"),
    ("Delta", "Δ"), ("E", "E"), ("Eacute", "É"), ("Ebreve", "Ĕ"), ("Ecaron", "Ě"), ("Ecircumflex", "Ê"),
    ("Edieresis", "Ë"), ("Edotaccent", "Ė"), ("Egrave", "È"), ("Emacron", "Ē"), ("Eng", "Ŋ"),
    ("Eogonek", "Ę"), ("Epsilon", "Ε"), ("Eta", "Η"), ("Eth", "Ð"), ("Euro", "€"), ("F", "F"), ("G", "G"),
    ("Gamma", "Γ"), ("Gbreve", "Ğ"), ("Gcaron", "Ǧ"), ("Gcircumflex", "Ĝ"), ("Gcommaaccent", "Ģ"),
    ("Gdotaccent", "Ġ"), ("H", "H"), ("Hbar", "Ħ"), ("Hcircumflex", "Ĥ"), ("I", "I"), ("IJ", "Ĳ"),
    ("Iacute", "Í"), ("Ibreve", "Ĭ"), ("Icircumflex", "Î"), ("Idieresis", "Ï"), ("Idotaccent", "İ"),
    ("Ifraktur", "ℑ"), ("Igrave", "Ì"), ("Imacron", "Ī"), ("Iogonek", "Į"), ("Iota", "Ι"), ("Itilde", "Ĩ"),
    ("J", "J"), ("Jcircumflex", "Ĵ"), ("K", "K"), ("Kappa", "Κ"), ("Kcommaaccent", "Ķ"), ("L", "L"),
    ("Lacute", "Ĺ"), ("Lambda", "Λ"), ("Lcaron", "Ľ"), ("Lcommaaccent", "Ļ"), ("Ldot", "Ŀ"), ("Lslash", "Ł"),
    ("M", "M"), ("Mu", "Μ"), ("N", "N"), ("Nacute", "Ń"), ("Ncaron", "Ň"), ("Ncommaaccent", "Ņ"),
    ("Ntilde", "Ñ"), ("Nu", "Ν"), ("O", "O"), ("OE", "Œ"), ("Oacute", "Ó"), ("Obreve", "Ŏ"),
    ("Ocircumflex", "Ô"), ("Odieresis", "Ö"), ("Ograve", "Ò"), ("Ohungarumlaut", "Ő"), ("Omacron", "Ō"),
    ("Omega", "Ω"), ("Omicron", "Ο"), ("Oslash", "Ø"), ("Otilde", "Õ"), ("P", "P"), ("Phi", "Φ"), ("Pi", "Π"),
    ("Psi", "Ψ"), ("Q", "Q"), ("R", "R"), ("Racute", "Ŕ"), ("Rcaron", "Ř"), ("Rcommaaccent", "Ŗ"),
    ("Rfraktur", "ℜ"), ("Rho", "Ρ"), ("S", "S"), ("Sacute", "Ś"), ("Scaron", "Š"), ("Scedilla", "Ş"),
    ("Scircumflex", "Ŝ"), ("Scommaaccent", "Ș"), ("Sigma", "Σ"), ("T", "T"), ("Tau", "Τ"), ("Tbar", "Ŧ"),
    ("Tcaron", "Ť"), ("Tcommaaccent", "Ţ"), ("Theta", "Θ"), ("Thorn", "Þ"), ("U", "U"), ("Uacute", "Ú"),
    ("Ubreve", "Ŭ"), ("Ucircumflex", "Û"), ("Udieresis", "Ü"), ("Ugrave", "Ù"), ("Uhungarumlaut", "Ű"),
    ("Umacron", "Ū"), ("Uogonek", "Ų"), ("Upsilon", "Υ"), ("Upsilon1", "ϒ"), ("Uring", "Ů"), ("Utilde", "Ũ"),
    ("V", "V"), ("W", "W"), ("Wcircumflex", "Ŵ"), ("X", "X"), ("Xi", "Ξ"), ("Y", "Y"), ("Yacute", "Ý"),
    ("Ycircumflex", "Ŷ"), ("Ydieresis", "Ÿ"), ("Z", "Z"), ("Zacute", "Ź"), ("Zcaron", "Ž"),
    ("Zdotaccent", "Ż"), ("Zeta", "Ζ"), ("a", "a"), ("aacute", "á"), ("abreve", "ă"), ("acircumflex", "â"),
    ("acute", "´"), ("adieresis", "ä"), ("ae", "æ"), ("agrave", "à"), ("aleph", "ℵ"), ("alpha", "α"),
    ("amacron", "ā"), ("ampersand", "&"), ("angbracketleft", "⟨"), ("angbracketright", "⟩"), ("angle", "∠"),
    ("angleleft", "〈"), ("angleright", "〉"), ("aogonek", "ą"), ("approxequal", "≈"), ("aring", "å"),
    ("arrowboth", "↔"), ("arrowdblboth", "⇔"), ("arrowdbldown", "⇓"), ("arrowdblleft", "⇐"),
    ("arrowdblright", "⇒"), ("arrowdblup", "⇑"), ("arrowdown", "↓"), ("arrowhookleft", "↩"),
    ("arrowhookright", "↪"), ("arrowleft", "←"), ("arrownortheast", "↗"), ("arrownorthwest", "↖"),
    ("arrowright", "→"), ("arrowsoutheast", "↘"), ("arrowsouthwest", "↙"), ("arrowup", "↑"),
    ("asciicircum", "^"), ("asciitilde", "~"), ("asterisk", "*"), ("asteriskmath", "∗"), ("at", "@"),
    ("atilde", "ã"), ("b", "b"), ("backslash", "\\"), ("bar", "|"), ("bardbl", "‖"), ("beta", "β"),
    ("braceleft", "{"), ("braceright", "}"), ("bracketleft", "["), ("bracketright", "]"), ("breve", "˘"),
    ("brokenbar", "¦"), ("bullet", "•"), ("c", "c"), ("cacute", "ć"), ("caron", "ˇ"), ("carriagereturn", "↵"),
    ("ccaron", "č"), ("ccedilla", "ç"), ("ccircumflex", "ĉ"), ("cdotaccent", "ċ"), ("cedilla", "¸"),
    ("ceilingleft", "⌈"), ("ceilingright", "⌉"), ("cent", "¢"), ("chi", "χ"), ("circledot", "⊙"),
    ("circleminus", "⊖"), ("circlemultiply", "⊗"), ("circleplus", "⊕"), ("circumflex", "ˆ"), ("club", "♣"),
    ("colon", ":"), ("comma", ","), ("congruent", "≅"), ("contintegraltext", "∮"), ("coproduct", "∐"),
    ("copyright", "©"), ("currency", "¤"), ("d", "d"), ("dagger", "†"), ("daggerdbl", "‡"), ("dcaron", "ď"),
    ("dcroat", "đ"), ("degree", "°"), ("delta", "δ"), ("diamond", "♦"), ("dieresis", "¨"), ("divide", "÷"),
    ("divides", "∣"), ("dollar", "$"), ("dotaccent", "˙"), ("dotlessi", "ı"), ("dotlessj", "ȷ"),
    ("dotmath", "⋅"), ("e", "e"), ("eacute", "é"), ("ebreve", "ĕ"), ("ecaron", "ě"), ("ecircumflex", "ê"),
    ("edieresis", "ë"), ("edotaccent", "ė"), ("egrave", "è"), ("eight", "8"), ("element", "∈"),
    ("ellipsis", "…"), ("emacron", "ē"), ("emdash", "—"), ("emptyset", "∅"), ("endash", "–"), ("eng", "ŋ"),
    ("eogonek", "ę"), ("epsilon", "ε"), ("epsilon1", "ϵ"), ("equal", "="), ("equivalence", "≡"), ("eta", "η"),
    ("eth", "ð"), ("exclam", "!"), ("exclamdown", "¡"), ("existential", "∃"), ("f", "f"), ("ff", "ﬀ"),
    ("ffi", "ﬃ"), ("ffl", "ﬄ"), ("fi", "ﬁ"), ("five", "5"), ("fl", "ﬂ"), ("flat", "♭"), ("floorleft", "⌊"),
    ("floorright", "⌋"), ("florin", "ƒ"), ("follows", "≻"), ("four", "4"), ("fraction", "⁄"), ("g", "g"),
    ("gamma", "γ"), ("gbreve", "ğ"), ("gcaron", "ǧ"), ("gcircumflex", "ĝ"), ("gcommaaccent", "ģ"),
    ("gdotaccent", "ġ"), ("germandbls", "ß"), ("gradient", "∇"), ("grave", "`"), ("greater", ">"),
    ("greaterequal", "≥"), ("greatermuch", "≫"), ("guillemotleft", "«"), ("guillemotright", "»"),
    ("guilsinglleft", "‹"), ("guilsinglright", "›"), ("h", "h"), ("hbar", "ħ"), ("hcircumflex", "ĥ"),
    ("heart", "♥"), ("hungarumlaut", "˝"), ("hyphen", "-"), ("i", "i"), ("iacute", "í"), ("ibreve", "ĭ"),
    ("icircumflex", "î"), ("idieresis", "ï"), ("igrave", "ì"), ("ij", "ĳ"), ("imacron", "ī"),
    ("infinity", "∞"), ("integral", "∫"), ("integraltext", "∫"), ("intersection", "∩"),
    ("intersectionsq", "⊓"), ("intersectiontext", "⋂"), ("iogonek", "į"), ("iota", "ι"), ("itilde", "ĩ"),
    ("j", "j"), ("jcircumflex", "ĵ"), ("k", "k"), ("kappa", "κ"), ("kcommaaccent", "ķ"),
    ("kgreenlandic", "ĸ"), ("l", "l"), ("lacute", "ĺ"), ("lambda", "λ"), ("latticetop", "⊤"), ("lcaron", "ľ"),
    ("lcommaaccent", "ļ"), ("ldot", "ŀ"), ("less", "<"), ("lessequal", "≤"), ("lessmuch", "≪"),
    ("logicaland", "∧"), ("logicalnot", "¬"), ("logicalor", "∨"), ("longs", "ſ"), ("lozenge", "◊"),
    ("lscript", "ℓ"), ("lslash", "ł"), ("m", "m"), ("macron", "¯"), ("mapsto", "↦"), ("minus", "−"),
    ("minusplus", "∓"), ("minute", "′"), ("mu", "µ"), ("multiply", "×"), ("n", "n"), ("nabla", "∇"),
    ("nacute", "ń"), ("napostrophe", "ŉ"), ("natural", "♮"), ("ncaron", "ň"), ("ncommaaccent", "ņ"),
    ("negationslash", "̸"), ("nine", "9"), ("notelement", "∉"), ("notequal", "≠"), ("notsubset", "⊄"),
    ("ntilde", "ñ"), ("nu", "ν"), ("numbersign", "#"), ("o", "o"), ("oacute", "ó"), ("obreve", "ŏ"),
    ("ocircumflex", "ô"), ("odieresis", "ö"), ("oe", "œ"), ("ogonek", "˛"), ("ograve", "ò"),
    ("ohungarumlaut", "ő"), ("omacron", "ō"), ("omega", "ω"), ("omega1", "ϖ"), ("omicron", "ο"), ("one", "1"),
    ("onehalf", "½"), ("onequarter", "¼"), ("onesuperior", "¹"), ("openbullet", "◦"), ("ordfeminine", "ª"),
    ("ordmasculine", "º"), ("oslash", "ø"), ("otilde", "õ"), ("owner", "∋"), ("p", "p"), ("paragraph", "¶"),
    ("parallel", "∥"), ("parenleft", "("), ("parenright", ")"), ("partialdiff", "∂"), ("percent", "%"),
    ("period", "."), ("periodcentered", "·"), ("perpendicular", "⊥"), ("perthousand", "‰"), ("phi", "φ"),
    ("phi1", "ϕ"), ("pi", "π"), ("plus", "+"), ("plusminus", "±"), ("precedes", "≺"), ("prime", "′"),
    ("product", "∏"), ("producttext", "∏"), ("propersubset", "⊂"), ("propersuperset", "⊃"),
    ("proportional", "∝"), ("psi", "ψ"), ("q", "q"), ("question", "?"), ("questiondown", "¿"),
    ("quotedbl", "\""), ("quotedblbase", "„"), ("quotedblleft", "“"), ("quotedblright", "”"),
    ("quoteleft", "‘"), ("quoteright", "’"), ("quotesinglbase", "‚"), ("quotesingle", "'"), ("r", "r"),
    ("racute", "ŕ"), ("radical", "√"), ("rcaron", "ř"), ("rcommaaccent", "ŗ"), ("reflexsubset", "⊆"),
    ("reflexsuperset", "⊇"), ("registered", "®"), ("rho", "ρ"), ("rho1", "ϱ"), ("ring", "˚"), ("s", "s"),
    ("sacute", "ś"), ("scaron", "š"), ("scedilla", "ş"), ("scircumflex", "ŝ"), ("scommaaccent", "ș"),
    ("second", "″"), ("section", "§"), ("semicolon", ";"), ("seven", "7"), ("sharp", "♯"), ("sigma", "σ"),
    ("sigma1", "ς"), ("similar", "∼"), ("six", "6"), ("slash", "/"), ("space", " "), ("spade", "♠"),
    ("square", "□"), ("star", "⋆"), ("sterling", "£"), ("suchthat", "∋"), ("summation", "∑"),
    ("summationtext", "∑"), ("t", "t"), ("tau", "τ"), ("tbar", "ŧ"), ("tcaron", "ť"), ("tcommaaccent", "ţ"),
    ("therefore", "∴"), ("theta", "θ"), ("theta1", "ϑ"), ("thorn", "þ"), ("three", "3"),
    ("threequarters", "¾"), ("threesuperior", "³"), ("tilde", "˜"), ("trademark", "™"), ("triangle", "△"),
    ("triangleinv", "▽"), ("turnstileleft", "⊢"), ("turnstileright", "⊣"), ("two", "2"), ("twosuperior", "²"),
    ("u", "u"), ("uacute", "ú"), ("ubreve", "ŭ"), ("ucircumflex", "û"), ("udieresis", "ü"), ("ugrave", "ù"),
    ("uhungarumlaut", "ű"), ("umacron", "ū"), ("underscore", "_"), ("union", "∪"), ("unionsq", "⊔"),
    ("uniontext", "⋃"), ("universal", "∀"), ("uogonek", "ų"), ("upsilon", "υ"), ("uring", "ů"),
    ("utilde", "ũ"), ("v", "v"), ("visiblespace", "␣"), ("w", "w"), ("wcircumflex", "ŵ"),
    ("weierstrass", "℘"), ("wreathproduct", "≀"), ("x", "x"), ("xi", "ξ"), ("y", "y"), ("yacute", "ý"),
    ("ycircumflex", "ŷ"), ("ydieresis", "ÿ"), ("yen", "¥"), ("z", "z"), ("zacute", "ź"), ("zcaron", "ž"),
    ("zdotaccent", "ż"), ("zero", "0"), ("zeta", "ζ"),
];

/// Unicode text of a glyph name, or None for names that carry no meaning (`.notdef`, `g123`).
pub fn glyph_to_unicode(name: &str) -> Option<String> {
    let base = name.split('.').next().unwrap_or("");
    if base.is_empty() {
        return None;
    }
    if base.contains('_') {
        let parts: Option<String> = base.split('_').map(single_component).collect();
        return parts;
    }
    single_component(base)
}

fn single_component(name: &str) -> Option<String> {
    if let Ok(index) = NAMES.binary_search_by(|(key, _)| key.cmp(&name)) {
        return Some(NAMES[index].1.to_string());
    }
    if let Some(hex) = name.strip_prefix("uni") {
        if hex.len() >= 4 && hex.len() % 4 == 0 {
            return hex
                .as_bytes()
                .chunks(4)
                .map(|chunk| std::str::from_utf8(chunk).ok().and_then(scalar_from_hex))
                .collect();
        }
    }
    if let Some(hex) = name.strip_prefix('u') {
        if (4..=6).contains(&hex.len()) {
            return scalar_from_hex(hex).map(String::from);
        }
    }
    None
}

fn scalar_from_hex(hex: &str) -> Option<char> {
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    // char::from_u32 already refuses surrogates, which glyph names must not produce.
    u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_for_binary_search() {
        assert!(
            NAMES.windows(2).all(|pair| pair[0].0 < pair[1].0),
            "NAMES must stay sorted"
        );
    }

    #[test]
    fn resolves_table_algorithmic_and_ligature_names() {
        assert_eq!(glyph_to_unicode("germandbls").as_deref(), Some("ß"));
        assert_eq!(glyph_to_unicode("uni00410042").as_deref(), Some("AB"));
        assert_eq!(glyph_to_unicode("u1F600").as_deref(), Some("😀"));
        assert_eq!(glyph_to_unicode("f_f_i").as_deref(), Some("ffi"));
        assert_eq!(glyph_to_unicode("a.sc").as_deref(), Some("a"));
        assert_eq!(glyph_to_unicode(".notdef"), None);
        assert_eq!(glyph_to_unicode("uniD800"), None);
    }
}

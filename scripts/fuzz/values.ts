// The fuzzer's vocabulary: ordinary words for valid values, and the hostile values it
// mixes in. None contains what the leak check looks for (SQL keywords, file paths), so
// an answer echoing an input cannot pass for a leak.

/** Words of the trade, for valid search terms and names. */
export const WORDS = [
  'toiture', 'charpente', 'maçonnerie', 'école', 'rénovation', 'énergétique', 'voirie', 'isolation', 'chauffage', 'plomberie',
  'électricité', 'couverture', 'menuiserie', 'gymnase', 'mairie', 'lycée', 'réseaux', 'assainissement', 'peinture', 'démolition',
  'étanchéité', 'façade', 'ascenseur', 'piscine', 'crèche', 'Bretagne', 'Lyon', 'pompe à chaleur', 'photovoltaïque', 'désamiantage',
];

/** Alert names the generator reuses, so that creates replay, conflict and get deleted. */
export const ALERT_NAMES = ['Toitures Bretagne', 'Écoles 69', 'Voirie', 'Gymnases', 'Isolation 2025', 'Façades'];

/** Strings that have broken parsers, search engines, databases or encoders somewhere. */
export const SPECIAL_STRINGS = [
  '', ' ', '   ', '\t', '\n', '\r\n', '\u0000', 'a\u0000b', '\u0000\u0000', '\ud800', '\udc00', 'a\ud800b', '\udfff\ud800', '\udbff\udfff',
  '😀', '🏗️', 'e\u0301', '\u202e', '\u200b', '\ufeff', '\uffff', '\ufffd', '\u0085', '\u2028', '\u001f', '\u007f',
  "'", '"', '\\', '%', '_', '%_%', "' OR '1'='1", '1; DROP TABLE alerts', '" OR ""="', '`', '$1', '?', '??', ':name',
  '*', '-', '+', '^', ':', '(', ')', '()', '{', '}', '[', ']', '"', '""', '"""', '"a', 'a"', '"a" "b"',
  'NEAR', 'NEAR(a b)', 'toiture NEAR école', 'AND', 'OR', 'NOT', 'toiture OR école', 'toiture AND NOT école', '-toiture', 'toit*', '^toiture',
  'col:toiture', 'toiture:', '&', '|', '!', '!!', '<->', '<2>', 'a & b', 'a | b', '!a', 'a:*', "'a'", "''",
  ',', ',,', ', ,', 'a,', ',a', "l'", "d'", "l'école", "aujourd'hui", 'x'.repeat(3),
  '<script>alert(1)</script>', '${x}', '{{x}}', '%00', '%s%s%s', '\\u0000', '..', '.', '/', '//',
  'ÉCOLE', 'ß', 'ǅ', 'İ', 'ﬁ', 'Ⅻ', '١٢٣', '４５', '𝟒𝟓', 'ｔｏｉｔｕｒｅ', 'a\r\nb',
];

/** The characters that break databases and encoders most: drawn more often than the rest. */
export const CONTROL_STRINGS = ['\u0000', 'a\u0000', '\u0000\u0000', '\ud800', '\udc00', '\udbff', '\udfff\ud800', '\u0001', '\u001b', '\u007f', '\ufffe', '\uffff'];

/** Number texts JSON allows but IEEE doubles do not all hold, and their neighbours. */
export const EXTREME_NUMBERS = [
  '1e309', '-1e309', '1e400', `1${'0'.repeat(309)}`, '1e308', '-1e308', '1.7976931348623157e308', '5e-324', '1e-400', '-1e-400',
  '-0', '0.0', '1.0', '1e2', '1E+2', '1e-2', '9007199254740993', '-9007199254740993', '123456789012345678901234567890',
  '0.1', '10.5', '2147483648', '-2147483649', '1e21', '0e0', '50.000000000000001', '49.99999999999999999',
];

/** Keys JavaScript objects inherit or treat specially. */
export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

/** Unknown argument names. */
export const UNKNOWN_KEYS = ['couleur', '', ' ', 'QUERY', 'query ', 'Query', 'a'.repeat(300), 'é', '\u0000', '\ud800', '$ref', '$where', 'length', 'then', '0', 'limit\u0000', 'action'];

/** Bodies that are not JSON (or not one JSON value). */
export const INVALID_JSON = [
  '{', '}', '{"a":', '{"a":1,}', '{,}', "{'a':1}", '{a:1}', 'NaN', '{"a":NaN}', '{"a":Infinity}', '{"a":-Infinity}', '{"a":undefined}',
  '{"a":01}', '{"a":.5}', '{"a":1e}', '{"a":+1}', '{"a":0x10}', '{"a":"\u0001"}', '{"a":"\t"}', '{"a":"\\x41"}', '{"a":"\\u12"}', '{"a":"b}',
  '\ufeff{}', '{} {}', '{}x', '/*c*/{}', '{}//c', '[', 'nul', 'tru', '"', '{"a" 1}', '{"a"::1}', '{1:2}', '{"a":[1,2}', '{"a":{"b":1}', ']',
];

/** Bodies that are JSON but not an object. */
export const NON_OBJECT_BODIES = ['[]', '[{}]', '[1,2]', '"texte"', '""', '0', '-1', '1e309', 'true', 'false', 'null', '[null]'];

/** Bodies with nothing in them. */
export const EMPTY_BODIES = ['', ' ', '\n', '\t\r\n '];

/** Content-Type headers (null: no header at all). */
export const CONTENT_TYPES: (string | null)[] = [
  null, 'text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx',
  'json', 'text/json', 'application/xml', '*/*', '', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json;charset=latin1',
  'application/vnd.api+json', 'application/merge-patch+json', ' application/json ', 'application/json, text/plain', 'application/json; charset="UTF-8"', 'application/json; charset=utf-16', 'application/json; foo=bar',
];

/** Byte sequences that are not UTF-8: bad leaders, lone continuations, overlongs, encoded surrogates, beyond U+10FFFF. */
export const INVALID_UTF8: number[][] = [[0xff], [0xfe], [0xc3], [0x80], [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]];

export const DATE_NEAR_MISSES = ['2024-02-30', '2023-02-29', '2024-13-01', '2024-00-10', '2024-1-1', '2024-01-01T00:00:00Z', '0000-00-00', '24-01-01', '2024/01/01', '01-01-2024', '2024-01-01 ', ' 2024-01-01', '2024-01-32', '+002024-01-01', '２０２４-01-01'];
export const DATE_VALID = ['2024-02-29', '9999-12-31', '0001-01-01', '1970-01-01', '2025-06-15'];
export const UUID_NEAR_MISSES = [
  '00000000-0000-0000-0000-000000000000', '{0f8fad5b-d9cb-469f-a165-70867728950e}', '0f8fad5bd9cb469fa16570867728950e', '0f8fad5b-d9cb-469f-a165-70867728950', '0f8fad5b-d9cb-469f-a165-70867728950e0',
  '0f8fad5b-d9cb-469f-a165-70867728950g', 'urn:uuid:0f8fad5b-d9cb-469f-a165-70867728950e', '0F8FAD5B-D9CB-469F-A165-70867728950E', ' 0f8fad5b-d9cb-469f-a165-70867728950e', '0f8fad5b-d9cb-469f-a165-70867728950e\n',
];

/** Query strings added to GET me (arguments there are not read). */
export const QUERY_STRINGS = ['', '', '', '?a=1', '?__proto__[admin]=1', '?limit=1e309', '?%00=%ff', '?' + 'x'.repeat(2000), '?a=1&a=2'];

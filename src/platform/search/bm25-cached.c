/*
** bm25_cached: FTS5's own bm25() with each phrase's document count, and each document's
** length, kept between statements.
**
** FTS5's bm25() counts, at the first row of every statement, the documents holding each
** phrase of the query (its IDF), by reading every one of them: « travaux » in the large
** set's companies (880,000 documents) costs about 40 ms per statement, whether the
** statement then ranks one match or a thousand. Then, for every match, it reads the
** document's length from the index's table of lengths: for « travaux batiment » (169,555
** matches) 80 of the ranking's 100 ms. This function scores exactly as bm25() does (the
** same formula, the same operations in the same order), but keeps, per connection, each
** phrase's count (keyed by the index and the phrase) and each document's length (by
** index and rowid, 2 bytes each, up to 16 M documents per index), both for the index's
** data version, read on the same connection in the same transaction
** (`search_data_versions`, bumped by every write of the index's documents), the index's
** row and token totals checked too: a count or a length is reused only for the same data.
**
**   bm25_cached(<index>, '<index>|<phrase>|<phrase>…', <weights>…)
**
** Each phrase as the query's text gives it, in the query's order: its words separated by
** one space, `*` after a prefix word. Inside a transaction, or without a version for the
** index, nothing is kept nor reused; with a phrase list that does not match the query's
** phrases, or a phrase whose words differ from the query's, that phrase's count is read as
** bm25() does.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#include <math.h>
#include <string.h>

#define COUNT_SLOTS 4096
/* Indexes whose documents' lengths a connection keeps (the service has about ten). */
#define SIZED_INDEXES 32
/* The most documents' lengths kept per index: 2 bytes each, 32 MiB at most. */
#define MOST_SIZES (16 * 1024 * 1024)

typedef struct CountSlot {
  char *zKey;             /* "<index>|<phrase>", sqlite3_malloc'd; 0 if empty */
  int nKey;
  sqlite3_int64 version;
  sqlite3_int64 nRow;
  sqlite3_int64 nToken;
  sqlite3_int64 nHit;
} CountSlot;

/*
** The lengths of an index's documents (their words over every column, plus one; 0: not
** read yet), by rowid, valid for one version of the index's data and its totals: reading a
** match's length (xColumnSize) is a lookup in the index's table of lengths, most of a broad
** question's ranking (« travaux batiment » in the large set's companies: 80 of 100 ms).
*/
typedef struct IndexSizes {
  char *zIndex;           /* sqlite3_malloc'd; 0 if the entry is free */
  sqlite3_int64 version;
  sqlite3_int64 nRow;
  sqlite3_int64 nToken;
  unsigned short *aSize;  /* nSize entries */
  sqlite3_int64 nSize;
  sqlite3_int64 nRead;    /* lengths read one at a time for this version */
  int bWhole;             /* every length of this version read at once */
} IndexSizes;

typedef struct CountCache {
  CountSlot aSlot[COUNT_SLOTS];
  IndexSizes aIndex[SIZED_INDEXES];
} CountCache;

typedef struct Bm25Data {
  int nPhrase;
  double avgdl;
  double *aIDF;
  double *aFreq;
  IndexSizes *pSizes;     /* the index's lengths, when its version is known; else 0 */
  sqlite3_int64 version;
  sqlite3 *db;
} Bm25Data;

static void countCacheDestroy(void *p) {
  CountCache *pCache = (CountCache *)p;
  int i;
  for (i = 0; i < COUNT_SLOTS; i++) sqlite3_free(pCache->aSlot[i].zKey);
  for (i = 0; i < SIZED_INDEXES; i++) {
    sqlite3_free(pCache->aIndex[i].zIndex);
    sqlite3_free(pCache->aIndex[i].aSize);
  }
  sqlite3_free(pCache);
}

static int countCb(const Fts5ExtensionApi *pApi, Fts5Context *pFts, void *pUserData) {
  (void)pApi;
  (void)pFts;
  (*(sqlite3_int64 *)pUserData)++;
  return SQLITE_OK;
}

static unsigned int keyHash(const char *z, int n) {
  unsigned int h = 2166136261u;
  int i;
  for (i = 0; i < n; i++) h = (h ^ (unsigned char)z[i]) * 16777619u;
  return h;
}

/* Whether `zPhrase` (words separated by one space, maybe a final `*`) holds the phrase's tokens. */
static int phraseMatches(const Fts5ExtensionApi *pApi, Fts5Context *pFts, int iPhrase, const char *zPhrase, int nPhrase) {
  int nTok = pApi->xPhraseSize(pFts, iPhrase);
  int iTok, at = 0;
  if (nPhrase > 0 && zPhrase[nPhrase - 1] == '*') nPhrase--;
  for (iTok = 0; iTok < nTok; iTok++) {
    const char *zTok = 0;
    int nT = 0;
    if (pApi->xQueryToken(pFts, iPhrase, iTok, &zTok, &nT) != SQLITE_OK) return 0;
    if (iTok > 0) {
      if (at >= nPhrase || zPhrase[at] != ' ') return 0;
      at++;
    }
    if (at + nT > nPhrase || memcmp(zPhrase + at, zTok, (size_t)nT) != 0) return 0;
    at += nT;
  }
  return at == nPhrase && nTok > 0;
}

/* The documents holding phrase `iPhrase`, from the cache when `zKey` (its key) is given and the data is the same. */
static int phraseHits(const Fts5ExtensionApi *pApi, Fts5Context *pFts, CountCache *pCache, int iPhrase, const char *zKey, int nKey,
                      sqlite3_int64 version, sqlite3_int64 nRow, sqlite3_int64 nToken, sqlite3_int64 *pnHit) {
  CountSlot *pSlot = 0;
  int rc;
  *pnHit = 0;
  if (zKey) {
    pSlot = &pCache->aSlot[keyHash(zKey, nKey) % COUNT_SLOTS];
    if (pSlot->zKey && pSlot->nKey == nKey && memcmp(pSlot->zKey, zKey, (size_t)nKey) == 0 && pSlot->version == version &&
        pSlot->nRow == nRow && pSlot->nToken == nToken) {
      *pnHit = pSlot->nHit;
      return SQLITE_OK;
    }
  }
  rc = pApi->xQueryPhrase(pFts, iPhrase, (void *)pnHit, countCb);
  if (rc == SQLITE_OK && pSlot) {
    char *zCopy = (char *)sqlite3_malloc(nKey);
    if (zCopy) {
      memcpy(zCopy, zKey, (size_t)nKey);
      sqlite3_free(pSlot->zKey);
      pSlot->zKey = zCopy;
      pSlot->nKey = nKey;
      pSlot->version = version;
      pSlot->nRow = nRow;
      pSlot->nToken = nToken;
      pSlot->nHit = *pnHit;
    }
  }
  return rc;
}

/*
** Whether the database keeps a data version for the index (`search_data_versions`, a row
** for it), and that version in *pVersion, read on the statement's own connection and so in
** its transaction.
*/
static int indexVersion(sqlite3 *db, const char *zIndex, int nIndex, sqlite3_int64 *pVersion) {
  sqlite3_stmt *pStmt = 0;
  int found = 0;
  if (sqlite3_prepare_v2(db, "select version from search_data_versions where name = ?1", -1, &pStmt, 0) == SQLITE_OK &&
      sqlite3_bind_text(pStmt, 1, zIndex, nIndex, SQLITE_TRANSIENT) == SQLITE_OK && sqlite3_step(pStmt) == SQLITE_ROW &&
      sqlite3_column_type(pStmt, 0) == SQLITE_INTEGER) {
    *pVersion = sqlite3_column_int64(pStmt, 0);
    found = 1;
  }
  sqlite3_finalize(pStmt);
  return found;
}

/*
** The lengths kept for the index named by the first nIndex bytes of zIndex, emptied when
** the data they were read from is not this version's; 0 when every entry is taken.
*/
static IndexSizes *indexSizes(CountCache *pCache, const char *zIndex, int nIndex, sqlite3_int64 version, sqlite3_int64 nRow, sqlite3_int64 nToken) {
  IndexSizes *pFree = 0;
  int i;
  for (i = 0; i < SIZED_INDEXES; i++) {
    IndexSizes *p = &pCache->aIndex[i];
    if (p->zIndex == 0) {
      if (pFree == 0) pFree = p;
      continue;
    }
    if ((int)strlen(p->zIndex) != nIndex || memcmp(p->zIndex, zIndex, (size_t)nIndex) != 0) continue;
    if (p->version != version || p->nRow != nRow || p->nToken != nToken) {
      if (p->aSize) memset(p->aSize, 0, (size_t)p->nSize * sizeof(unsigned short));
      p->nRead = 0;
      p->bWhole = 0;
      p->version = version;
      p->nRow = nRow;
      p->nToken = nToken;
    }
    return p;
  }
  if (pFree == 0) return 0;
  pFree->zIndex = (char *)sqlite3_malloc(nIndex + 1);
  if (pFree->zIndex == 0) return 0;
  memcpy(pFree->zIndex, zIndex, (size_t)nIndex);
  pFree->zIndex[nIndex] = 0;
  pFree->version = version;
  pFree->nRow = nRow;
  pFree->nToken = nToken;
  return pFree;
}

/*
** Room for the length of `iRowid`: the table grown to twice it (at least 64 K entries), or
** just to it (`exact`), within MOST_SIZES; 0 if none.
*/
static int sizeRoom(IndexSizes *p, sqlite3_int64 iRowid, int exact) {
  sqlite3_int64 nNew;
  unsigned short *aNew;
  if (iRowid < 0 || iRowid >= MOST_SIZES) return 0;
  if (iRowid < p->nSize) return 1;
  nNew = exact ? iRowid + 1 : iRowid * 2 < 65536 ? 65536 : iRowid * 2;
  if (nNew > MOST_SIZES) nNew = MOST_SIZES;
  aNew = (unsigned short *)sqlite3_realloc64(p->aSize, (sqlite3_uint64)nNew * sizeof(unsigned short));
  if (aNew == 0) return 0;
  memset(aNew + p->nSize, 0, (size_t)(nNew - p->nSize) * sizeof(unsigned short));
  p->aSize = aNew;
  p->nSize = nNew;
  return 1;
}

/*
** Every document's length at once, from the index's table of lengths (`<index>_docsize`:
** one varint per column, as FTS5 writes them), read on the statement's connection and so
** in its transaction: about 50 ms for the large set's 1,000,000 companies, against 0.45 µs
** a match read one at a time.
*/
static void readWholeSizes(sqlite3 *db, IndexSizes *p) {
  sqlite3_stmt *pStmt = 0;
  char *zSql = sqlite3_mprintf("select id, sz from \"%w_docsize\" order by id desc", p->zIndex);
  p->bWhole = 1;
  if (zSql == 0) return;
  if (sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0) == SQLITE_OK) {
    while (sqlite3_step(pStmt) == SQLITE_ROW) {
      sqlite3_int64 iRowid = sqlite3_column_int64(pStmt, 0);
      const unsigned char *a = (const unsigned char *)sqlite3_column_blob(pStmt, 1);
      int n = sqlite3_column_bytes(pStmt, 1), i = 0;
      sqlite3_int64 total = 0;
      while (i < n) {
        sqlite3_int64 v = 0;
        int k = 0;
        while (i < n && k < 9) {
          unsigned char c = a[i++];
          k++;
          if (k == 9) {
            v = (v << 8) | c;
            break;
          }
          v = (v << 7) | (c & 0x7f);
          if ((c & 0x80) == 0) break;
        }
        total += v;
      }
      /* The first row is the last document: the table grown once, to it. */
      if (total < 0xFFFF && sizeRoom(p, iRowid, 1)) p->aSize[iRowid] = (unsigned short)(total + 1);
    }
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
}

/*
** The current match's length in words over every column (xColumnSize), from the index's
** lengths kept when they hold it for the statement's version; read and kept otherwise.
** Once a version's lengths read one at a time pass a 32nd of the index's documents
** (broad words ranked), all of them are read at once.
*/
static int matchLength(const Fts5ExtensionApi *pApi, Fts5Context *pFts, Bm25Data *pData, int *pnTok) {
  IndexSizes *p = pData->pSizes;
  sqlite3_int64 iRowid;
  int rc;
  if (p == 0 || p->version != pData->version) return pApi->xColumnSize(pFts, -1, pnTok);
  iRowid = pApi->xRowid(pFts);
  if (iRowid >= 0 && iRowid < p->nSize && p->aSize[iRowid] != 0) {
    *pnTok = p->aSize[iRowid] - 1;
    return SQLITE_OK;
  }
  if (!p->bWhole && ++p->nRead > 1000 && p->nRead > p->nRow / 32) {
    readWholeSizes(pData->db, p);
    if (iRowid >= 0 && iRowid < p->nSize && p->aSize[iRowid] != 0) {
      *pnTok = p->aSize[iRowid] - 1;
      return SQLITE_OK;
    }
  }
  rc = pApi->xColumnSize(pFts, -1, pnTok);
  if (rc == SQLITE_OK && *pnTok >= 0 && *pnTok < 0xFFFF && sizeRoom(p, iRowid, 0)) p->aSize[iRowid] = (unsigned short)(*pnTok + 1);
  return rc;
}

/* As FTS5's fts5Bm25GetData, with the phrases' counts through the cache. */
static int bm25GetData(const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3 *db, CountCache *pCache, sqlite3_value **apVal, Bm25Data **ppData) {
  int rc = SQLITE_OK;
  Bm25Data *p = (Bm25Data *)pApi->xGetAuxdata(pFts, 0);
  if (p == 0) {
    int nPhrase = pApi->xPhraseCount(pFts);
    sqlite3_int64 nRow = 0, nToken = 0;
    sqlite3_int64 nByte = sizeof(Bm25Data) + nPhrase * 2 * sizeof(double);
    const char *zList = (const char *)sqlite3_value_text(apVal[0]);
    int nList = sqlite3_value_bytes(apVal[0]);
    /*
    ** Outside a transaction only: inside one, the version read may be a write's not yet
    ** committed, and rolled back later while another write commits the same number.
    */
    int cached = zList != 0 && sqlite3_get_autocommit(db);
    sqlite3_int64 version = 0;
    int nIndex = 0, at, i;
    char *zKey = 0;
    p = (Bm25Data *)sqlite3_malloc64(nByte);
    if (p == 0) return SQLITE_NOMEM;
    memset(p, 0, (size_t)nByte);
    p->nPhrase = nPhrase;
    p->aIDF = (double *)&p[1];
    p->aFreq = &p->aIDF[nPhrase];

    rc = pApi->xRowCount(pFts, &nRow);
    if (rc == SQLITE_OK) rc = pApi->xColumnTotalSize(pFts, -1, &nToken);
    if (rc == SQLITE_OK) p->avgdl = (double)nToken / (double)nRow;

    if (cached) {
      while (nIndex < nList && zList[nIndex] != '|') nIndex++;
      cached = nIndex < nList && indexVersion(db, zList, nIndex, &version);
      zKey = cached ? (char *)sqlite3_malloc(nList + 1) : 0;
      if (zKey) memcpy(zKey, zList, (size_t)nIndex + 1);
      else cached = 0;
    }
    if (cached && rc == SQLITE_OK) {
      p->pSizes = indexSizes(pCache, zList, nIndex, version, nRow, nToken);
      p->version = version;
      p->db = db;
    }
    at = nIndex + 1;
    for (i = 0; rc == SQLITE_OK && i < nPhrase; i++) {
      sqlite3_int64 nHit = 0;
      const char *zPhraseKey = 0;
      int nPhraseKey = 0;
      if (cached && at <= nList) {
        int end = at;
        while (end < nList && zList[end] != '|') end++;
        /* The last phrase must end the list, every other one be followed by another. */
        if ((i == nPhrase - 1) == (end == nList) && phraseMatches(pApi, pFts, i, zList + at, end - at)) {
          memcpy(zKey + nIndex + 1, zList + at, (size_t)(end - at));
          zPhraseKey = zKey;
          nPhraseKey = nIndex + 1 + (end - at);
        }
        at = end + 1;
      }
      rc = phraseHits(pApi, pFts, pCache, i, zPhraseKey, nPhraseKey, version, nRow, nToken, &nHit);
      if (rc == SQLITE_OK) {
        double idf = log((nRow - nHit + 0.5) / (nHit + 0.5));
        if (idf <= 0.0) idf = 1e-6;
        p->aIDF[i] = idf;
      }
    }
    sqlite3_free(zKey);
    if (rc != SQLITE_OK) {
      sqlite3_free(p);
    } else {
      rc = pApi->xSetAuxdata(pFts, p, sqlite3_free);
    }
    if (rc != SQLITE_OK) p = 0;
  }
  *ppData = p;
  return rc;
}

/* As FTS5's fts5Bm25Function, the weights after the phrase list. */
static void bm25CachedFunction(const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx, int nVal, sqlite3_value **apVal) {
  const double k1 = 1.2;
  const double b = 0.75;
  int rc;
  double score = 0.0;
  Bm25Data *pData;
  int i;
  int nInst = 0;
  double D = 0.0;
  double *aFreq = 0;
  if (nVal < 1) {
    sqlite3_result_error(pCtx, "bm25_cached: argument manquant", -1);
    return;
  }
  rc = bm25GetData(pApi, pFts, sqlite3_context_db_handle(pCtx), (CountCache *)pApi->xUserData(pFts), apVal, &pData);
  if (rc == SQLITE_OK) {
    aFreq = pData->aFreq;
    memset(aFreq, 0, sizeof(double) * pData->nPhrase);
    rc = pApi->xInstCount(pFts, &nInst);
  }
  for (i = 0; rc == SQLITE_OK && i < nInst; i++) {
    int ip;
    int ic;
    int io;
    rc = pApi->xInst(pFts, i, &ip, &ic, &io);
    if (rc == SQLITE_OK) {
      double w = (nVal - 1 > ic) ? sqlite3_value_double(apVal[ic + 1]) : 1.0;
      aFreq[ip] += w;
    }
  }
  if (rc == SQLITE_OK) {
    int nTok;
    rc = matchLength(pApi, pFts, pData, &nTok);
    D = (double)nTok;
  }
  if (rc == SQLITE_OK) {
    for (i = 0; i < pData->nPhrase; i++) {
      score += pData->aIDF[i] * ((aFreq[i] * (k1 + 1.0)) / (aFreq[i] + k1 * (1 - b + b * D / pData->avgdl)));
    }
    sqlite3_result_double(pCtx, -1.0 * score);
  } else {
    sqlite3_result_error_code(pCtx, rc);
  }
}

static fts5_api *fts5ApiOf(sqlite3 *db) {
  fts5_api *pRet = 0;
  sqlite3_stmt *pStmt = 0;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &pStmt, 0) == SQLITE_OK) {
    sqlite3_bind_pointer(pStmt, 1, (void *)&pRet, "fts5_api_ptr", 0);
    sqlite3_step(pStmt);
  }
  sqlite3_finalize(pStmt);
  return pRet;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_bmcached_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  fts5_api *pFts5;
  CountCache *pCache;
  int rc;
  SQLITE_EXTENSION_INIT2(pApi);
  (void)pzErrMsg;
  pFts5 = fts5ApiOf(db);
  if (pFts5 == 0 || pFts5->iVersion < 3) return SQLITE_ERROR;
  pCache = (CountCache *)sqlite3_malloc(sizeof(CountCache));
  if (pCache == 0) return SQLITE_NOMEM;
  memset(pCache, 0, sizeof(CountCache));
  rc = pFts5->xCreateFunction(pFts5, "bm25_cached", (void *)pCache, bm25CachedFunction, countCacheDestroy);
  if (rc != SQLITE_OK) sqlite3_free(pCache);
  return rc;
}

/*
** bm25_cached: FTS5's own bm25() with each phrase's document count kept between statements.
**
** FTS5's bm25() counts, at the first row of every statement, the documents holding each
** phrase of the query (its IDF), by reading every one of them: « travaux » in the large
** set's companies (880,000 documents) costs about 40 ms per statement, whether the
** statement then ranks one match or a thousand. This function scores exactly as bm25()
** does (the same formula, the same operations in the same order), but keeps each phrase's
** count per connection, keyed by the index, the phrase and the index's data version, read
** on the same connection in the same transaction (`search_data_versions`, bumped by every
** write of the index's documents), the index's row and token totals checked too: a count
** is reused only for the same data.
**
**   bm25_cached(<index>, '<index>|<phrase>|<phrase>…', <weights>…)
**
** Each phrase as the query's text gives it, in the query's order: its words separated by
** one space, `*` after a prefix word. Without a version for the index, with a phrase list
** that does not match the query's phrases or a phrase whose words differ from the query's,
** the count is read as bm25() does.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#include <math.h>
#include <string.h>

#define COUNT_SLOTS 4096

typedef struct CountSlot {
  char *zKey;             /* "<index>|<phrase>", sqlite3_malloc'd; 0 if empty */
  int nKey;
  sqlite3_int64 version;
  sqlite3_int64 nRow;
  sqlite3_int64 nToken;
  sqlite3_int64 nHit;
} CountSlot;

typedef struct CountCache {
  CountSlot aSlot[COUNT_SLOTS];
} CountCache;

typedef struct Bm25Data {
  int nPhrase;
  double avgdl;
  double *aIDF;
  double *aFreq;
} Bm25Data;

static void countCacheDestroy(void *p) {
  CountCache *pCache = (CountCache *)p;
  int i;
  for (i = 0; i < COUNT_SLOTS; i++) sqlite3_free(pCache->aSlot[i].zKey);
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
** The index's data version, read on the statement's own connection and so in its
** transaction; 0 when the database keeps none for it (no `search_data_versions`, no row).
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
    int cached = zList != 0;
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
    rc = pApi->xColumnSize(pFts, -1, &nTok);
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

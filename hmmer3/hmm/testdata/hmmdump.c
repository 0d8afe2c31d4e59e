/* hmmdump: our driver that prints every value HMMER 3.3.2's own reader
 * (p7_hmmfile_OpenE + p7_hmmfile_Read) parsed from a model file, floats
 * as hexadecimal bit patterns, so the Go reader can be compared bit for
 * bit. The Go test prints the same dump from its own HMM (dump_test.go).
 *
 *   REF=/work/ref/hmmer
 *   gcc -O2 -I$REF/src -I$REF/easel -o /tmp/hmmdump hmmdump.c $REF/src/libhmmer.a $REF/easel/libeasel.a -lm -lpthread
 *   /tmp/hmmdump model.hmm > model.dump
 *
 * Like hmmsearch it first turns on SSE flush-to-zero, so probabilities
 * that would be subnormal read as 0. For HMMER2 files it leaves out the
 * E-value parameters that HMMER computes by simulation on reading
 * (p7_Calibrate), and prints them instead to stderr as "calibrated NAME
 * v1..v6"; and it prints map[0], which HMMER leaves uninitialized for
 * them, as 0.
 */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <xmmintrin.h>

#include "hmmer.h"

static void f32(float v) { uint32_t u; memcpy(&u, &v, 4); printf(" %08x", u); }
static void str(const char *tag, const char *s) { printf("%s %s\n", tag, s ? s : "(none)"); }

int main(int argc, char **argv)
{
  P7_HMMFILE   *hfp = NULL;
  ESL_ALPHABET *abc = NULL;
  P7_HMM       *hmm = NULL;
  char          errbuf[eslERRBUFSIZE];
  int           status, n = 0, k, x;

  if (argc != 2) { fprintf(stderr, "usage: hmmdump <hmmfile>\n"); return 1; }
  _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_ON);
  if (p7_hmmfile_OpenE(argv[1], NULL, &hfp, errbuf) != eslOK) { fprintf(stderr, "open: %s\n", errbuf); return 1; }
  while ((status = p7_hmmfile_Read(hfp, &abc, &hmm)) == eslOK) {
    int h2 = (hfp->format == p7_HMMFILE_20);
    printf("HMM %d\n", n++);
    printf("leng %d\nalph %s\n", hmm->M, esl_abc_DecodeType(abc->type));
    str("name", hmm->name);
    str("acc", hmm->acc);
    str("desc", hmm->desc);
    str("rf", (hmm->flags & p7H_RF) ? hmm->rf : NULL);
    str("mm", (hmm->flags & p7H_MMASK) ? hmm->mm : NULL);
    str("cons", (hmm->flags & p7H_CONS) ? hmm->consensus : NULL);
    str("cs", (hmm->flags & p7H_CS) ? hmm->cs : NULL);
    printf("map");
    /* read_asc20hmm leaves map[0] uninitialized; it is 0 by convention */
    if (hmm->flags & p7H_MAP) for (k = 0; k <= hmm->M; k++) printf(" %d", (h2 && k == 0) ? 0 : hmm->map[k]);
    else printf(" (none)");
    printf("\nnseq %d\neffn", hmm->nseq); f32(hmm->eff_nseq);
    printf("\nmaxl %d\n", hmm->max_length);
    printf("cksum %d %u\n", (hmm->flags & p7H_CHKSUM) ? 1 : 0, hmm->checksum);
    if (h2) {
      fprintf(stderr, "calibrated %s", hmm->name);
      for (x = 0; x < p7_NEVPARAM; x++) { uint32_t u; memcpy(&u, &hmm->evparam[x], 4); fprintf(stderr, " %08x", u); }
      fprintf(stderr, "\n");
    } else {
      printf("stats %d", (hmm->flags & p7H_STATS) ? 1 : 0);
      for (x = 0; x < p7_NEVPARAM; x++) f32(hmm->evparam[x]);
      printf("\n");
    }
    printf("cutoffs %d %d %d", (hmm->flags & p7H_GA) ? 1 : 0, (hmm->flags & p7H_TC) ? 1 : 0, (hmm->flags & p7H_NC) ? 1 : 0);
    for (x = 0; x < p7_NCUTOFFS; x++) f32(hmm->cutoff[x]);
    printf("\ncompo");
    if (hmm->flags & p7H_COMPO) for (x = 0; x < abc->K; x++) f32(hmm->compo[x]);
    else printf(" (none)");
    printf("\n");
    for (k = 0; k <= hmm->M; k++) {
      printf("mat %d", k); for (x = 0; x < abc->K; x++) f32(hmm->mat[k][x]);
      printf("\nins %d", k); for (x = 0; x < abc->K; x++) f32(hmm->ins[k][x]);
      printf("\nt %d", k);   for (x = 0; x < p7H_NTRANSITIONS; x++) f32(hmm->t[k][x]);
      printf("\n");
    }
    printf("//\n");
    p7_hmm_Destroy(hmm);
  }
  if (status != eslEOF) { fprintf(stderr, "read error %d: %s\n", status, hfp->errbuf); return 1; }
  p7_hmmfile_Close(hfp);
  esl_alphabet_Destroy(abc);
  return 0;
}

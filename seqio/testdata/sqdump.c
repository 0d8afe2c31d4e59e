/* sqdump: our driver that prints what Easel 0.48 (as built into HMMER
 * 3.3.2) reads from a sequence file opened the way hmmsearch opens its
 * target database: esl_sqfile_Open with format autodetection, then
 * esl_sqfile_SetDigital. One line per sequence:
 *   name <TAB> acc <TAB> desc <TAB> L <TAB> residues
 * with the residues written back as the alphabet's symbol of each
 * digital code (so '.' and '_' both print as '-', the gap code). On a
 * parse error it prints "ERROR <message>" and exits 1.
 *
 *   REF=/work/ref/hmmer
 *   gcc -O2 -I$REF/easel -o /tmp/sqdump sqdump.c $REF/easel/libeasel.a -lm
 *   /tmp/sqdump amino seqs.fa > seqs.fa.sqdump
 */
#include <stdio.h>
#include <string.h>

#include "easel.h"
#include "esl_alphabet.h"
#include "esl_sq.h"
#include "esl_sqio.h"

int main(int argc, char **argv)
{
  ESL_ALPHABET *abc;
  ESL_SQFILE   *sqfp = NULL;
  ESL_SQ       *sq;
  int           status;
  int64_t       i;

  if (argc != 3) { fprintf(stderr, "usage: sqdump amino|dna|rna <seqfile>\n"); return 2; }
  abc = esl_alphabet_Create(strcmp(argv[1], "amino") == 0 ? eslAMINO : strcmp(argv[1], "dna") == 0 ? eslDNA : eslRNA);
  status = esl_sqfile_Open(argv[2], eslSQFILE_UNKNOWN, NULL, &sqfp);
  if (status != eslOK) { printf("ERROR open status %d\n", status); return 1; }
  esl_sqfile_SetDigital(sqfp, abc);
  sq = esl_sq_CreateDigital(abc);
  while ((status = esl_sqio_Read(sqfp, sq)) == eslOK) {
    printf("%s\t%s\t%s\t%" PRId64 "\t", sq->name, sq->acc, sq->desc, sq->n);
    for (i = 1; i <= sq->n; i++) putchar(abc->sym[sq->dsq[i]]);
    putchar('\n');
    esl_sq_Reuse(sq);
  }
  if (status != eslEOF) { printf("ERROR %s\n", esl_sqfile_GetErrorBuf(sqfp)); return 1; }
  esl_sqfile_Close(sqfp);
  return 0;
}

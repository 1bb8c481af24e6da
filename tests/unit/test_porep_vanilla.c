/*
 * PoRep vanilla side (include/czk/porep_vanilla.h):
 *   - Challenges: upstream's published interactive challenges and synthetic challenge
 *     indexes (rust-fil-proofs fil-proofs-bin/Justfile); the three features against fixed
 *     vectors and, on fresh random inputs each run, tests/unit/porep_challenges_ref.py (a clean-room Python port:
 *     hashlib SHA-256 / BLAKE2b and an RFC 8439 ChaCha20 of its own).
 *   - A sealed 2 KiB and 8 MiB sector → C1: czk_porep_c1_check and czk_porep_c1_verify accept
 *     it, every labeling proof's parents equal the sector's own labels (czk_sdr_label_parents,
 *     independent of the C1's columns), the JSON writes, parses and writes back identically;
 *     a tampered sibling, label parent, label or seed fails naming partition and challenge.
 *   - Synthetic fixtures (2 KiB to 32 GiB; 64 GiB in tests/slow) pass the same
 *     verification, challenges included.
 *   - Strongest: the PoRep circuit, fed from the sealed sector's C1 and from a fixture, is
 *     satisfied row by row in EVAL mode (a·b = c), and a tampered parent label breaks it.
 */
#include "czk/alloc.h"
#include "czk/bls12_381.h"
#include "czk/cs.h"
#include "czk/pool.h"
#include "czk/porep.h"
#include "czk/porep_vanilla.h"
#include "czk/sdr.h"
#include "czk/seal_proof.h"
#include "czk/sector.h"
#include "czk/vanilla.h"
#include "czk_test.h"
#include "filecoin/vanilla/porep_vanilla_internal.h"

#include <stdio.h>
#include <time.h>

static czk_pool *g_pool;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void to_hex(char *out, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* ---------------------------------------------------------------------------------------
 * Challenges
 * ------------------------------------------------------------------------------------- */

/*
 * Upstream's own answers: rust-fil-proofs fil-proofs-bin/Justfile feeds the output of its
 * challenges-interactive tool (replica_id = seed = 0x0011…eeff0011…ee00, 32 GiB, 10
 * partitions of 18) to merkle-proofs as this list of 180 challenges, the 16 KiB run's as
 * [206, 253], and the output of challenges-synth-extract (the synthetic challenge
 * indexes, which depend on replica_id and seed only) as the second list and [378, 474].
 */
static const uint64_t upstream_interactive_32g[180] = {
    634761690, 1045210944, 511645472, 154509611, 1016897961, 1008759641, 140723436, 382670922,
    778365821, 466750664, 561160512, 589581287, 610400678, 752255333, 51902683, 461707114,
    174698930, 325404544, 293276734, 738495834, 740325572, 880468505, 536918834, 148746428,
    503884161, 102452918, 193421274, 455280661, 587562019, 893677167, 688587487, 100263355,
    863906103, 857413607, 848983919, 403233550, 223276781, 542711471, 342325984, 798372674,
    171442164, 354409060, 355230908, 395699113, 3761161, 562810653, 36121893, 583047677,
    660190982, 865113431, 344392504, 1014805731, 831112434, 270095050, 922947561, 709011045,
    152358614, 647519448, 910066529, 535990058, 884535823, 139889572, 664690284, 33875941,
    453041222, 164931231, 710614757, 240473408, 89611870, 356921538, 644911771, 1029408604,
    556043035, 270565426, 741581659, 359899480, 518468388, 9064451, 263297365, 787919725,
    936117709, 1054170945, 591931943, 251274644, 600307140, 291680952, 863116987, 550475783,
    896201632, 463366733, 239379297, 684110325, 967235628, 378315791, 35860289, 747830730,
    671308376, 601851228, 498169487, 964555449, 931503868, 155400227, 212093286, 1057102638,
    483473883, 8811350, 425203535, 71971074, 505987834, 573260839, 982218123, 584004983,
    469976220, 153112168, 82534360, 383949896, 773710817, 395867200, 826200982, 369050910,
    986676582, 65532916, 520910944, 916947696, 529106797, 469115101, 304705383, 1049623912,
    812806221, 696299867, 248312436, 380157572, 758964741, 831379298, 850267643, 716885154,
    774505628, 129014803, 1036324794, 450758038, 488485782, 934161436, 887251432, 80156305,
    85237629, 369041372, 45712991, 698203525, 934088662, 1009377708, 1073405965, 43328824,
    427459141, 833295445, 435159148, 1044779146, 112238478, 692703114, 614825280, 494241251,
    541659739, 441407495, 740750896, 711414568, 11623488, 604224317, 1057259405, 1034832038,
    982879303, 467862785, 204037499, 501152492, 134197735, 750207285, 330451066, 782622099,
    274876032, 387647182, 538076117, 209362216,
};
static const uint64_t upstream_synth_indexes_32g[180] = {
    189818, 12762, 13801, 240675, 156947, 236898, 257523, 175630, 81593, 180498, 59215, 150021,
    83017, 178440, 172892, 125992, 166544, 94218, 45018, 154677, 22439, 124424, 247435, 65949,
    70915, 149865, 38014, 96690, 202001, 63786, 183617, 59046, 226949, 125634, 236728, 189643,
    15803, 119423, 260050, 31369, 211177, 23599, 215301, 82037, 26729, 71422, 49082, 59223,
    138254, 219554, 156661, 231707, 257738, 201165, 94738, 73087, 12803, 227009, 101120, 50383,
    186920, 164441, 97279, 157174, 183529, 79563, 241740, 103030, 36266, 52202, 102687, 110357,
    126619, 88222, 46958, 1817, 105969, 217820, 29334, 33672, 120246, 197911, 148401, 203005,
    113408, 65202, 165725, 172416, 244, 226772, 197979, 45940, 32185, 59232, 209908, 41326,
    96650, 99057, 67040, 68125, 139678, 246671, 201155, 12394, 97735, 184280, 236235, 159739,
    118322, 140204, 93784, 262074, 209219, 79578, 133039, 199617, 172898, 236455, 135982,
    100155, 82672, 26644, 36451, 152436, 161007, 158289, 59108, 248287, 181981, 21528, 134065,
    176807, 185089, 80361, 12897, 107734, 44658, 257688, 22258, 247394, 44222, 563, 237533,
    168551, 8609, 195933, 239825, 132276, 138503, 7699, 9077, 88462, 64072, 219850, 103995,
    90208, 224442, 97791, 230679, 88390, 126279, 254786, 248676, 72888, 84461, 27610, 178487,
    244844, 98932, 169901, 23325, 138808, 132286, 55280, 105625, 232624, 169108, 74377, 214708,
    136763,
};

static void test_challenges_upstream(void)
{
    uint8_t r[32];
    for (int i = 0; i < 32; i++) r[i] = (uint8_t)(i % 16 * 0x11);
    r[31] = 0;
    czk_err err;
    uint64_t got[18];
    for (unsigned k = 0; k < 10; k++) {
        CHECK_STATUS(czk_porep_challenges(got, CZK_SEAL_StackedDrg32GiBV1_1, r, r, NULL, k, &err),
                     CZK_OK);
        CHECK_MSG(memcmp(got, upstream_interactive_32g + 18 * k, sizeof got) == 0,
                  "interactive partition %u", k);
        CHECK_STATUS(czk__porep_synth_indexes(got, 1ull << 30, 18, r, r, k), CZK_OK);
        CHECK_MSG(memcmp(got, upstream_synth_indexes_32g + 18 * k, sizeof got) == 0,
                  "synthetic indexes partition %u", k);
    }
    CHECK_STATUS(czk__porep_interactive_challenges(got, 512, 2, r, r, 0), CZK_OK);
    CHECK(got[0] == 206 && got[1] == 253);
    CHECK_STATUS(czk__porep_synth_indexes(got, 512, 2, r, r, 0), CZK_OK);
    CHECK(got[0] == 378 && got[1] == 474);
}

/* Generated by `porep_challenges_ref.py FEATURE NODES CPP K R S C` with
 * R = 11^31 0a, S = 00 01 .. 1f, C = 22^31 05 (hex bytes). */
static void test_challenge_vectors(void)
{
    static const struct {
        czk_seal_proof proof;
        unsigned k;
        uint64_t want[18];
    } v[] = {
        {CZK_SEAL_StackedDrg2KiBV1_1, 0, {63, 15}},
        {CZK_SEAL_StackedDrg2KiBV1, 0, {63, 15}},
        {CZK_SEAL_StackedDrg32GiBV1_1, 3,
         {184393477, 451953725, 46660152, 376653248, 351498716, 784989067, 686847804, 1028086222,
          73090419, 1031527175, 108763318, 761115155, 250214688, 271076719, 580792524, 532439831,
          769576388, 557467575}},
        {CZK_SEAL_StackedDrg64GiBV1_1, 9,
         {1803844325, 1884732804, 1376801488, 1482988750, 1559270950, 1051392520, 1087118896,
          2106977528, 995284009, 2080534136, 975931241, 265472067, 1617772146, 1749458480,
          1830307960, 1095155359, 1811184805, 476625521}},
        {CZK_SEAL_StackedDrg2KiBV1_1_Feat_SyntheticPoRep, 0, {56, 6}},
        {CZK_SEAL_StackedDrg32GiBV1_1_Feat_SyntheticPoRep, 5,
         {635761939, 145548572, 567805783, 941613504, 361074387, 310824167, 390363324, 953190315,
          114787842, 519523155, 408242185, 519163935, 986080135, 1005844638, 858872833, 108232420,
          727703609, 937435499}},
        {CZK_SEAL_StackedDrg32GiBV1_2_Feat_NonInteractivePoRep, 100,
         {810991131, 1039449121, 219154645, 271342563, 795576146, 1037801327, 964133771, 363290369,
          738126630, 600027764, 636210459, 20102713, 344984076, 775295624, 820420315, 965422760,
          193301711, 885343090}},
        {CZK_SEAL_StackedDrg2KiBV1_2_Feat_NonInteractivePoRep, 12, {14, 48}},
    };
    uint8_t r[32], s[32], c[32];
    memset(r, 0x11, 32);
    r[31] = 0x0a;
    for (int i = 0; i < 32; i++) s[i] = (uint8_t)i;
    memset(c, 0x22, 32);
    c[31] = 0x05;
    czk_err err;
    for (size_t t = 0; t < sizeof v / sizeof v[0]; t++) {
        uint64_t got[18] = {0};
        const czk_seal_proof_info *info = czk_seal_proof_get(v[t].proof);
        CHECK_STATUS(czk_porep_challenges(got, v[t].proof, r, s, c, v[t].k, &err), CZK_OK);
        CHECK_MSG(memcmp(got, v[t].want, info->challenges_per_partition * 8) == 0,
                  "%s partition %u: first challenge %llu, want %llu", info->name, v[t].k,
                  (unsigned long long)got[0], (unsigned long long)v[t].want[0]);
    }
    /* Errors: partition out of range, missing inputs. */
    uint64_t got[18];
    CHECK_STATUS(czk_porep_challenges(got, CZK_SEAL_StackedDrg32GiBV1_1, r, s, NULL, 10, &err),
                 CZK_EINVAL);
    CHECK_STATUS(czk_porep_challenges(got, CZK_SEAL_StackedDrg2KiBV1_1_Feat_SyntheticPoRep, r, s,
                                      NULL, 0, &err),
                 CZK_EINVAL);
    CHECK_STATUS(czk_porep_challenges(got, CZK_SEAL_StackedDrg2KiBV1_2_Feat_NonInteractivePoRep,
                                      r, s, NULL, 0, &err),
                 CZK_EINVAL);
    CHECK_STATUS(czk_porep_challenges(got, (czk_seal_proof)77, r, s, c, 0, &err), CZK_EINVAL);
}

/* Fresh random inputs each run against the Python reference (skipped without python3). */
static void test_challenges_python(void)
{
    static const czk_seal_proof proofs[] = {
        CZK_SEAL_StackedDrg8MiBV1_1, CZK_SEAL_StackedDrg32GiBV1_1, CZK_SEAL_StackedDrg64GiBV1,
        CZK_SEAL_StackedDrg512MiBV1_1_Feat_SyntheticPoRep,
        CZK_SEAL_StackedDrg64GiBV1_1_Feat_SyntheticPoRep,
        CZK_SEAL_StackedDrg32GiBV1_2_Feat_NonInteractivePoRep};
    for (size_t t = 0; t < sizeof proofs / sizeof proofs[0]; t++) {
        const czk_seal_proof_info *info = czk_seal_proof_get(proofs[t]);
        uint8_t r[32], s[32], c[32];
        czk_test_rand_bytes(r, 32);
        czk_test_rand_bytes(s, 32);
        czk_test_rand_bytes(c, 32);
        r[31] &= 0x3f;
        c[31] &= 0x3f;
        unsigned k = (unsigned)(czk_test_rand64() % info->partitions);
        char rh[65], sh[65], ch[65], cmd[1024];
        to_hex(rh, r, 32);
        to_hex(sh, s, 32);
        to_hex(ch, c, 32);
        const char *feat = info->feature == CZK_SEAL_FEATURE_INTERACTIVE ? "interactive"
                           : info->feature == CZK_SEAL_FEATURE_SYNTHETIC ? "synthetic"
                                                                         : "ni";
        snprintf(cmd, sizeof cmd, "python3 %s/tests/unit/porep_challenges_ref.py %s %llu %u %u %s %s %s",
                 CZK_SOURCE_DIR, feat, (unsigned long long)info->nodes,
                 info->challenges_per_partition, k, rh, sh, ch);
        FILE *p = popen(cmd, "r");
        if (!p) {
            printf("  (python3 not runnable: reference comparison skipped)\n");
            return;
        }
        uint64_t want[64];
        unsigned n = 0;
        unsigned long long x;
        while (n < 64 && fscanf(p, "%llu", &x) == 1) want[n++] = x;
        int rc = pclose(p);
        if (rc != 0 || n == 0) {
            printf("  (python3 reference failed to run: comparison skipped for %s)\n", info->name);
            continue;
        }
        CHECK(n == info->challenges_per_partition);
        uint64_t got[64];
        czk_err err;
        CHECK_STATUS(czk_porep_challenges(got, proofs[t], r, s, c, k, &err), CZK_OK);
        CHECK_MSG(memcmp(got, want, n * 8) == 0, "%s partition %u differs from Python", info->name, k);
        for (unsigned i = 0; i < n; i++) CHECK(got[i] >= 1 && got[i] < info->nodes);
    }
}

/* ---------------------------------------------------------------------------------------
 * Witness from a C1 (for this test only; fil_job does the production conversion)
 * ------------------------------------------------------------------------------------- */

static bool to_path(const czk_vanilla_merkle_proof *mp, czk_merkle_path *path)
{
    uint64_t leaf;
    czk_err err;
    return czk_vanilla_to_path(mp, path, &leaf, &err) == CZK_OK;
}

static czk_porep_challenge *witness_of(const czk_porep_c1_output *c1, size_t k, unsigned layers,
                                       czk_porep_witness *w)
{
    size_t n = c1->challenge_counts[k];
    czk_porep_challenge *ch = czk_calloc(n, sizeof *ch);
    const czk_porep_vanilla_proof *v = c1->vanilla_proofs[k];
    memcpy(w->replica_id, c1->replica_id, 32);
    memcpy(w->comm_d, c1->comm_d, 32);
    memcpy(w->comm_r, c1->comm_r, 32);
    memcpy(w->comm_r_last, v[0].comm_r_last_proof.root, 32);
    memcpy(w->comm_c, v[0].c_x.inclusion_proof.root, 32);
    for (size_t i = 0; i < n; i++) {
        czk_porep_challenge *c = &ch[i];
        c->challenge = v[i].labeling_proofs[0].node;
        memcpy(c->data_leaf, v[i].comm_d_proofs.leaf, 32);
        CHECK(to_path(&v[i].comm_d_proofs, &c->comm_d_path));
        CHECK(to_path(&v[i].comm_r_last_proof, &c->comm_r_last_path));
        CHECK(to_path(&v[i].c_x.inclusion_proof, &c->comm_c_path));
        for (unsigned l = 0; l < layers; l++) memcpy(c->c_x[l], v[i].c_x.rows[l], 32);
        for (unsigned j = 0; j < CZK_SDR_DEGREE; j++) {
            const czk_vanilla_column_proof *cp =
                j < CZK_SDR_DRG_DEGREE ? &v[i].drg_parents[j] : &v[i].exp_parents[j - CZK_SDR_DRG_DEGREE];
            czk_porep_column *pc = j < CZK_SDR_DRG_DEGREE ? &c->drg[j] : &c->exp[j - CZK_SDR_DRG_DEGREE];
            for (unsigned l = 0; l < layers; l++) memcpy(pc->rows[l], cp->rows[l], 32);
            CHECK(to_path(&cp->inclusion_proof, &pc->path));
        }
    }
    w->challenges = ch;
    return ch;
}

/* Synthesize partition k in EVAL mode: −1 when every row holds, else the first bad row
 * (−2 when synthesis itself failed). */
static long eval_partition(const czk_porep_c1_output *c1, size_t k, czk_seal_proof proof,
                           void (*tamper)(czk_porep_challenge *))
{
    czk_err err;
    czk_porep_config cfg;
    CHECK_STATUS(czk_porep_config_for_proof(&cfg, proof, &err), CZK_OK);
    czk_porep_witness w;
    memset(&w, 0, sizeof w);
    czk_porep_challenge *ch = witness_of(c1, k, cfg.layers, &w);
    if (tamper) tamper(ch);
    czk_porep_circuit_ctx ctx = {cfg, &w};

    czk_cs_config cc;
    memset(&cc, 0, sizeof cc);
    cc.mode = CZK_CS_COUNT;
    czk_cs *cs = NULL;
    czk_cs_counts cnt;
    CHECK_STATUS(czk_cs_create(&cs, &cc, &err), CZK_OK);
    czk_porep_circuit_ctx blank = {cfg, NULL};
    czk_porep_circuit(cs, &blank);
    CHECK_STATUS(czk_cs_finish(cs, &err), CZK_OK);
    czk_cs_get_counts(cs, &cnt);
    czk_cs_destroy(cs);

    size_t nc = cnt.n_constraints;
    czk_fr *z = czk_malloc((cnt.n_inputs + cnt.n_aux) * sizeof *z);
    czk_fr *abc = czk_malloc(3 * nc * sizeof *abc);
    memset(&cc, 0, sizeof cc);
    cc.mode = CZK_CS_EVAL;
    cc.buf.inputs = z;
    cc.buf.inputs_cap = cnt.n_inputs;
    cc.buf.aux = z + cnt.n_inputs;
    cc.buf.aux_cap = cnt.n_aux;
    cc.buf.a = abc;
    cc.buf.b = abc + nc;
    cc.buf.c = abc + 2 * nc;
    cc.buf.rows_cap = nc;
    long bad = -2;
    CHECK_STATUS(czk_cs_create(&cs, &cc, &err), CZK_OK);
    czk_status st = czk_porep_circuit(cs, &ctx);
    if (st == CZK_OK) st = czk_cs_finish(cs, &err);
    czk_cs_destroy(cs);
    if (st == CZK_OK) {
        bad = -1;
        for (size_t j = 0; j < nc; j++) {
            czk_fr ab;
            czk_fr_mul(&ab, &abc[j], &abc[nc + j]);
            if (!czk_fr_eq(&ab, &abc[2 * nc + j])) {
                bad = (long)j;
                break;
            }
        }
        /* The inputs are StackedCompound::generate_public_inputs' for these challenges. */
        size_t ni = czk_porep_num_inputs(&cfg);
        czk_fr *pub = czk_malloc(ni * sizeof *pub);
        uint64_t chal[64];
        for (size_t i = 0; i < c1->challenge_counts[k]; i++) chal[i] = ch[i].challenge;
        czk_sdr_graph *g = NULL;
        CHECK_STATUS(czk_sdr_graph_create_for_proof(&g, proof, &err), CZK_OK);
        CHECK_STATUS(czk_porep_public_inputs(pub, ni, &cfg, g, c1->replica_id, c1->comm_d,
                                             c1->comm_r, chal, &err),
                     CZK_OK);
        CHECK(memcmp(pub, z + 1, ni * sizeof *pub) == 0);
        czk_sdr_graph_destroy(g);
        czk_free(pub);
    }
    czk_free(abc);
    czk_free(z);
    czk_free(ch);
    return bad;
}

static void tamper_parent_label(czk_porep_challenge *ch)
{
    ch[0].drg[2].rows[0][5] ^= 1;
}

static void tamper_data_leaf(czk_porep_challenge *ch)
{
    ch[1].data_leaf[0] ^= 1;
}

/* ---------------------------------------------------------------------------------------
 * C1 of a sealed sector
 * ------------------------------------------------------------------------------------- */

static czk_sector *seal_random(czk_seal_proof proof, uint8_t ticket[32])
{
    const czk_seal_proof_info *info = czk_seal_proof_get(proof);
    uint8_t *data = czk_malloc(info->sector_size);
    czk_test_rand_bytes(data, info->sector_size);
    for (uint64_t i = 0; i < info->nodes; i++) data[32 * i + 31] &= 0x3f;
    czk_sector_seal_input in = {
        .proof = proof, .sector_id = czk_test_rand64() % 1000000, .data = data};
    czk_seal_prover_id_from_actor(in.prover_id, 1000 + czk_test_rand64() % 1000);
    czk_test_rand_bytes(in.ticket, 32);
    memcpy(ticket, in.ticket, 32);
    czk_sector *s = NULL;
    czk_err err;
    CHECK_STATUS(czk_sector_seal(&s, &in, g_pool, &err), CZK_OK);
    czk_free(data);
    return s;
}

static bool contains(const char *hay, const char *needle)
{
    return strstr(hay, needle) != NULL;
}

static void check_sector_c1(czk_seal_proof proof, bool with_circuit)
{
    uint8_t ticket[32], seed[32];
    double t0 = now_s();
    czk_sector *s = seal_random(proof, ticket);
    if (!s) return;
    double t1 = now_s();
    czk_test_rand_bytes(seed, 32);
    czk_porep_c1_output *c1 = NULL;
    czk_err err;
    CHECK_STATUS(czk_porep_c1_from_sector(&c1, s, ticket, seed, g_pool, &err), CZK_OK);
    if (!c1) {
        czk_sector_destroy(s);
        return;
    }
    double t2 = now_s();
    const czk_seal_proof_info *info = czk_seal_proof_get(proof);
    printf("  %s: seal %.2f s, C1 %.3f s\n", info->name, t1 - t0, t2 - t1);
    czk_status st = czk_porep_c1_check(c1, proof, &err);
    CHECK_MSG(st == CZK_OK, "c1_check: %s", err.msg);
    st = czk_porep_c1_verify(c1, proof, 0, &err);
    CHECK_MSG(st == CZK_OK, "c1_verify: %s", err.msg);

    /* Fields against the sector and the challenge rule. */
    czk_sector_seal_comms cm;
    czk_sector_comms(s, &cm);
    CHECK_MEM(c1->comm_d, cm.comm_d, 32);
    CHECK_MEM(c1->comm_r, cm.comm_r, 32);
    CHECK_MEM(c1->replica_id, cm.replica_id, 32);
    CHECK_MEM(c1->ticket, ticket, 32);
    CHECK_MEM(c1->seed, seed, 32);
    CHECK(strcmp(c1->registered_proof, info->name) == 0);
    uint64_t want[64];
    for (size_t k = 0; k < c1->npartitions; k++) {
        CHECK_STATUS(czk_porep_challenges(want, proof, cm.replica_id, seed, cm.comm_r, (unsigned)k, &err),
                     CZK_OK);
        for (size_t i = 0; i < c1->challenge_counts[k]; i++) {
            const czk_porep_vanilla_proof *p = &c1->vanilla_proofs[k][i];
            CHECK(p->labeling_proofs[0].node == want[i]);
            /* Labeling parents from the sector's labels, not the C1's columns. */
            uint8_t par[CZK_SDR_LABEL_PARENTS * 32], lab[32];
            for (unsigned l = 1; l <= info->layers; l++) {
                CHECK_STATUS(czk_sector_label_parents(s, l, want[i], par, &err), CZK_OK);
                CHECK_MEM(p->labeling_proofs[l - 1].parents, par, sizeof par);
                CHECK_STATUS(czk_sector_label(s, l, want[i], lab, &err), CZK_OK);
                CHECK_MEM(p->c_x.rows[l - 1], lab, 32);
            }
        }
    }

    /* JSON: write, parse, write back identically; the parsed C1 verifies. */
    uint8_t *json = NULL, *again = NULL;
    size_t len = 0, len2 = 0;
    CHECK_STATUS(czk_porep_c1_write_json(c1, &json, &len, &err), CZK_OK);
    czk_porep_c1_output *back = NULL;
    CHECK_STATUS(czk_porep_c1_parse_json(&back, json, len, &err), CZK_OK);
    if (back) {
        CHECK_STATUS(czk_porep_c1_verify(back, proof, 0, &err), CZK_OK);
        CHECK_STATUS(czk_porep_c1_write_json(back, &again, &len2, &err), CZK_OK);
        CHECK(len2 == len && again && memcmp(again, json, len) == 0);
        czk_porep_c1_output_free(back);
    }
    czk_free(json);
    czk_free(again);

    /* Tampering: each must fail naming the partition and the challenge. */
    size_t k = c1->npartitions - 1, i = c1->challenge_counts[k] - 1;
    char where[64];
    snprintf(where, sizeof where, "partition %zu challenge %zu", k, i);
    czk_porep_vanilla_proof *p = &c1->vanilla_proofs[k][i];
    uint8_t save[32];

    memcpy(save, p->comm_r_last_proof.base.elems[0].hashes[0], 32);
    p->comm_r_last_proof.base.elems[0].hashes[0][3] ^= 0x10;
    CHECK_STATUS(czk_porep_c1_verify(c1, proof, 0, &err), CZK_EVERIFY);
    CHECK_MSG(contains(err.msg, where) && contains(err.msg, "comm_r_last_proof"), "%s", err.msg);
    memcpy(p->comm_r_last_proof.base.elems[0].hashes[0], save, 32);

    memcpy(save, p->labeling_proofs[0].parents[7], 32);
    p->labeling_proofs[0].parents[7][0] ^= 1;
    CHECK_STATUS(czk_porep_c1_verify(c1, proof, 0, &err), CZK_EVERIFY);
    CHECK_MSG(contains(err.msg, where) && contains(err.msg, "labeling_proofs[0].parents[7]"), "%s",
              err.msg);
    memcpy(p->labeling_proofs[0].parents[7], save, 32);

    /* A changed label fails (its column no longer hashes to its leaf). */
    memcpy(save, p->c_x.rows[0], 32);
    p->c_x.rows[0][0] ^= 1;
    CHECK(czk_porep_c1_verify(c1, proof, 0, &err) != CZK_OK && contains(err.msg, where));
    memcpy(p->c_x.rows[0], save, 32);

    /* Another replica_id leaves every path and column intact: only the label hashes
     * (and the challenges, not checked here) can tell. */
    c1->replica_id[0] ^= 1;
    CHECK_STATUS(czk_porep_c1_verify(c1, proof, CZK_POREP_VERIFY_ANY_CHALLENGES, &err), CZK_EVERIFY);
    CHECK_MSG(contains(err.msg, "partition 0 challenge 0") && contains(err.msg, "is not the label"),
              "%s", err.msg);
    c1->replica_id[0] ^= 1;

    /* The seed: non-interactive challenges do not depend on it. */
    /* A 2 KiB sector has 64 nodes, so one changed seed can still give some (rarely all) of
     * the same challenges: try a few until one differs, and expect the message to name the
     * first challenge that does. */
    uint8_t seed_save[32];
    memcpy(seed_save, c1->seed, 32);
    czk_status seed_st = CZK_OK;
    for (int tweak = 1; tweak <= 8 && seed_st == CZK_OK; tweak++) {
        memcpy(c1->seed, seed_save, 32);
        c1->seed[0] ^= (uint8_t)tweak;
        seed_st = czk_porep_c1_verify(c1, proof, 0, &err);
        if (info->feature == CZK_SEAL_FEATURE_NON_INTERACTIVE) break;
    }
    CHECK_STATUS(seed_st, info->feature == CZK_SEAL_FEATURE_NON_INTERACTIVE ? CZK_OK : CZK_EVERIFY);
    if (info->feature != CZK_SEAL_FEATURE_NON_INTERACTIVE)
        CHECK_MSG(contains(err.msg, "partition 0 challenge ") && contains(err.msg, "seed"), "%s",
                  err.msg);
    CHECK_STATUS(czk_porep_c1_verify(c1, proof, CZK_POREP_VERIFY_ANY_CHALLENGES, &err), CZK_OK);
    memcpy(c1->seed, seed_save, 32);

    if (with_circuit) {
        long bad = eval_partition(c1, 0, proof, NULL);
        CHECK_MSG(bad == -1, "sealed %s: row %ld fails", info->name, bad);
        CHECK(eval_partition(c1, 0, proof, tamper_parent_label) >= 0);
        CHECK(eval_partition(c1, 0, proof, tamper_data_leaf) >= 0);
    }
    czk_porep_c1_output_free(c1);
    czk_sector_destroy(s);
}

static void test_sector_2kib(void)
{
    check_sector_c1(CZK_SEAL_StackedDrg2KiBV1_1, true);
    check_sector_c1(CZK_SEAL_StackedDrg2KiBV1, true);
    check_sector_c1(CZK_SEAL_StackedDrg2KiBV1_1_Feat_SyntheticPoRep, false);
    check_sector_c1(CZK_SEAL_StackedDrg2KiBV1_2_Feat_NonInteractivePoRep, false);
}

/* Sealing 8 MiB takes 8-17 s on a shared 2-core machine: opt-in (CZK_TEST_8MIB=1) so the
 * unit tier stays well inside its budget. */
static void test_sector_8mib(void)
{
    const char *e = getenv("CZK_TEST_8MIB");
    if (!e || strcmp(e, "1") != 0) {
        printf("  (8 MiB sector skipped: set CZK_TEST_8MIB=1)\n");
        return;
    }
    check_sector_c1(CZK_SEAL_StackedDrg8MiBV1_1, false);
}

/* ---------------------------------------------------------------------------------------
 * Synthetic fixtures
 * ------------------------------------------------------------------------------------- */

static void test_fixtures(void)
{
    static const czk_seal_proof proofs[] = {
        CZK_SEAL_StackedDrg2KiBV1_1,  CZK_SEAL_StackedDrg8MiBV1_1, CZK_SEAL_StackedDrg512MiBV1_1,
        CZK_SEAL_StackedDrg32GiBV1_1, CZK_SEAL_StackedDrg2KiBV1,
    };
    /* 64 GiB (Top proofs) is verified, and its circuit evaluated, in the slow tier:
     * tests/slow/test_porep_fixture_circuit.c. */
    czk_err err;
    for (size_t t = 0; t < sizeof proofs / sizeof proofs[0]; t++) {
        const czk_seal_proof_info *info = czk_seal_proof_get(proofs[t]);
        uint64_t seed = czk_test_rand64();
        double t0 = now_s();
        czk_porep_c1_output *c1 = NULL;
        CHECK_STATUS(czk_porep_fixture(&c1, proofs[t], seed, g_pool, &err), CZK_OK);
        double t1 = now_s();
        if (!c1) continue;
        czk_status st = czk_porep_c1_verify(c1, proofs[t], 0, &err);
        CHECK_MSG(st == CZK_OK, "%s fixture: %s", info->name, err.msg);
        printf("  %s fixture: %.2f s, verify %.2f s\n", info->name, t1 - t0, now_s() - t1);
        /* Deterministic in (proof, seed). */
        czk_porep_c1_output *again = NULL;
        if (info->sector_size <= (8u << 20)) {
            CHECK_STATUS(czk_porep_fixture(&again, proofs[t], seed, NULL, &err), CZK_OK);
            uint8_t *a = NULL, *b = NULL;
            size_t la = 0, lb = 0;
            CHECK_STATUS(czk_porep_c1_write_json(c1, &a, &la, &err), CZK_OK);
            if (again) CHECK_STATUS(czk_porep_c1_write_json(again, &b, &lb, &err), CZK_OK);
            CHECK(la == lb && a && b && memcmp(a, b, la) == 0);
            /* And its JSON parses back into a C1 that verifies and writes identically. */
            czk_porep_c1_output *back = NULL;
            uint8_t *w = NULL;
            size_t lw = 0;
            if (a) CHECK_STATUS(czk_porep_c1_parse_json(&back, a, la, &err), CZK_OK);
            if (back) {
                CHECK_STATUS(czk_porep_c1_verify(back, proofs[t], 0, &err), CZK_OK);
                CHECK_STATUS(czk_porep_c1_write_json(back, &w, &lw, &err), CZK_OK);
                CHECK(lw == la && w && memcmp(w, a, la) == 0);
                czk_porep_c1_output_free(back);
            }
            czk_free(w);
            czk_free(a);
            czk_free(b);
            czk_porep_c1_output_free(again);
        }
        czk_porep_c1_output_free(c1);
    }
    /* Synthetic and non-interactive fixtures use the interactive challenge rule: they
     * verify except for the challenges. */
    czk_seal_proof other[] = {CZK_SEAL_StackedDrg2KiBV1_1_Feat_SyntheticPoRep,
                              CZK_SEAL_StackedDrg2KiBV1_2_Feat_NonInteractivePoRep};
    for (size_t t = 0; t < 2; t++) {
        czk_porep_c1_output *c1 = NULL;
        CHECK_STATUS(czk_porep_fixture(&c1, other[t], 5, g_pool, &err), CZK_OK);
        if (!c1) continue;
        CHECK_STATUS(czk_porep_c1_verify(c1, other[t], CZK_POREP_VERIFY_ANY_CHALLENGES, &err), CZK_OK);
        czk_porep_c1_output_free(c1);
    }
    CHECK_STATUS(
        czk_porep_fixture(&(czk_porep_c1_output *){NULL}, (czk_seal_proof)55, 1, NULL, &err),
        CZK_EINVAL);
}

/* 2 KiB and 8 MiB (18-level tree_d, 6-level tree_c paths), current and legacy graph. */
static void test_fixture_circuit(void)
{
    static const czk_seal_proof proofs[] = {CZK_SEAL_StackedDrg2KiBV1_1, CZK_SEAL_StackedDrg8MiBV1_1,
                                            CZK_SEAL_StackedDrg2KiBV1};
    for (size_t t = 0; t < sizeof proofs / sizeof proofs[0]; t++) {
        czk_err err;
        czk_porep_c1_output *c1 = NULL;
        CHECK_STATUS(czk_porep_fixture(&c1, proofs[t], czk_test_rand64(), NULL, &err), CZK_OK);
        if (!c1) continue;
        long bad = eval_partition(c1, 0, proofs[t], NULL);
        CHECK_MSG(bad == -1, "%s fixture: row %ld fails", czk_seal_proof_name(proofs[t]), bad);
        if (t == 0) CHECK(eval_partition(c1, 0, proofs[t], tamper_parent_label) >= 0);
        czk_porep_c1_output_free(c1);
    }
}

int main(void)
{
    czk_test_seed();
    if (czk_pool_create(&g_pool, 2, NULL) != CZK_OK) return 1;
    RUN(test_challenges_upstream);
    RUN(test_challenge_vectors);
    RUN(test_challenges_python);
    RUN(test_sector_2kib);
    RUN(test_sector_8mib);
    RUN(test_fixtures);
    RUN(test_fixture_circuit);
    czk_pool_destroy(g_pool);
    return czk_test_finish();
}

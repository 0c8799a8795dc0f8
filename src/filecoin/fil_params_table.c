/*
 * Filecoin parameter-file identity: the parameter set identifiers, cache
 * ids and file names of storage-proofs-core parameter_cache.rs, the cache
 * directory of settings.rs, the digest check of verify_production_entry,
 * and the published facts of rust-fil-proofs 19.1 parameters.json.
 *
 * The identifier formats are the reference's format! strings, reproduced
 * character for character (spaces and braces included): a file name is
 * the SHA-256 of that text, so one wrong character names a file that does
 * not exist. tests/filecoin/test_fil_c2_inputs.c recomputes every name of
 * the table below from the identifiers.
 */
#include "cuzk/fil_params.h"
#include "cuzk/fil_hash.h"
#include "cuzk/sha256.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define GiB (1ull << 30)

/* ---- published facts ------------------------------------------------------
 * parameters.json of rust-fil-proofs 19.1 (the file storage-proofs-core
 * includes with include_str!): name, cid, digest, sector_size of every
 * entry, in the file's (sorted) order. */
const cz_fil_params_entry cz_fil_params_published[] = {
    { "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.params",
      "Qma5WL6abSqYg9uUQAZ3EHS286bsNsha7oAGsJBD48Bq2q", "c3ad7bb549470b82ad52ed070aebb4f4", 536870912 },
    { "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.vk",
      "QmUa7f9JtJMsqJJ3s3ZXk6WyF4xJLE8FiqYskZGgk8GCDv", "994c5b7d450ca9da348c910689f2dc7f", 536870912 },
    { "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.params",
      "QmQiT4qBGodrVNEgVTDXxBNDdPbaD8Ag7Sx3ZTq1zHX79S", "5aedd2cf3e5c0a15623d56a1b43110ad", 8388608 },
    { "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.vk",
      "QmdcpKUQvHM8RFRVKbk1yHfEqMcBzhtFWKRp9SNEmWq37i", "abd80269054d391a734febdac0d2e687", 8388608 },
    { "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.params",
      "QmYM6Hg7mjmvA3ZHTsqkss1fkdyDju5dDmLiBZGJ5pz9y9", "311f92a3e75036ced01b1c0025f1fa0c", 2048 },
    { "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.vk",
      "QmaQsTLL3nc5dw6wAvaioJSBfd1jhQrA2o6ucFf7XeV74P", "eadad9784969890d30f2749708c79771", 2048 },
    { "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params",
      "QmNPc75iEfcahCwNKdqnWLtxnjspUGGR4iscjiz3wP3RtS", "1b3cfd761a961543f9eb273e435a06a2", 34359738368 },
    { "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.vk",
      "QmdFFUe1gcz9MMHc6YW8aoV48w4ckvcERjt7PkydQAMfCN", "3a6941983754737fde880d29c7094905", 34359738368 },
    { "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.params",
      "QmUB6xTVjzBQGuDNeyJMrrJ1byk58vhPm8eY2Lv9pgwanp", "1a392e7b759fb18e036c7559b5ece816", 68719476736 },
    { "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.vk",
      "Qmd794Jty7k26XJ8Eg4NDEks65Qk8G4GVfGkwqvymv8HAg", "80e366df2f1011953c2d01c7b7c9ee8e", 68719476736 },
    { "v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params",
      "QmfK4tonETepL6F4kDFdJ3fr72fzRWoRPf3XGMhV3RLX1S", "b69983b5d7a97a20f43b3d5ff2a4ed04", 34359738368 },
    { "v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.vk",
      "QmYCTYJQPu8wgtB2rMZ7HJC9nDx8c1fzYRPdCUiErK4q5a", "1ac05784f304129f74c5184190c1ec78", 34359738368 },
    { "v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.params",
      "QmNaaQXfm2NveN2Hf7bJ3udnQB2Qa4moMcUoJYJS6oWL6w", "a6d4f96e2b641a6d7a1a8e6dc1155c8a", 68719476736 },
    { "v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.vk",
      "QmXyeg9hbM7x9dGuUuAS68ozhiFEez4UkPTgwSDCVYKHBw", "8e8fb9e2c56eb5d740d0de135305a7b8", 68719476736 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.params",
      "QmVxjFRyhmyQaZEtCh7nk2abc7LhFkzhnRX4rcHqCCpikR", "7610b9f82bfc88405b7a832b651ce2f6", 2048 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.vk",
      "QmcS5JZs8X3TdtkEBpHAdUYjdNDqcL7fWQFtQz69mpnu2X", "0e0958009936b9d5e515ec97b8cb792d", 2048 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9.params",
      "QmUiRx71uxfmUE8V3H9sWAsAXoM88KR4eo1ByvvcFNeTLR", "1a7d4a9c8a502a497ed92a54366af33f", 536870912 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9.vk",
      "QmfCeddjFpWtavzfEzZpJfzSajGNwfL4RjFXWAvA9TSnTV", "4dae975de4f011f101f5a2f86d1daaba", 536870912 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.params",
      "QmcSTqDcFVLGGVYz1njhUZ7B6fkKtBumsLUwx4nkh22TzS", "82c88066be968bb550a05e30ff6c2413", 2048 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.vk",
      "QmSTCXF2ipGA3f6muVo6kHc2URSx6PzZxGUqu7uykaH5KU", "ffd79788d614d27919ae5bd2d94eacb6", 2048 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331.params",
      "QmU9SBzJNrcjRFDiFc4GcApqdApN6z9X7MpUr66mJ2kAJP", "700171ecf7334e3199437c930676af82", 8388608 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331.vk",
      "QmbmUMa3TbbW3X5kFhExs6WgC4KeWT18YivaVmXDkB6ANG", "79ebb55f56fda427743e35053edad8fc", 8388608 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9.params",
      "QmdNEL2RtqL52GQNuj8uz6mVj5Z34NVnbaJ1yMyh1oXtBx", "c49499bb76a0762884896f9683403f55", 8388608 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9.vk",
      "QmUiVYCQUgr6Y13pZFr8acWpSM4xvTXUdcvGmxyuHbKhsc", "34d4feeacd9abf788d69ef1bb4d8fd00", 8388608 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781.params",
      "QmVgCsJFRXKLuuUhT3aMYwKVGNA9rDeR6DCrs7cAe8riBT", "827359440349fe8f5a016e7598993b79", 536870912 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781.vk",
      "QmfA31fbCWojSmhSGvvfxmxaYCpMoXP95zEQ9sLvBGHNaN", "bd2cd62f65c1ab84f19ca27e97b7c731", 536870912 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.params",
      "QmaUmfcJt6pozn8ndq1JVBzLRjRJdHMTPd4foa8iw5sjBZ", "2cf49eb26f1fee94c85781a390ddb4c8", 34359738368 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.vk",
      "QmR9i9KL3vhhAqTBGj1bPPC7LvkptxrH9RvxJxLN1vvsBE", "0f8ec542485568fa3468c066e9fed82b", 34359738368 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.params",
      "Qmdtczp7p4wrbDofmHdGhiixn9irAcN77mV9AEHZBaTt1i", "d84f79a16fe40e9e25a36e2107bb1ba0", 34359738368 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.vk",
      "QmZCvxKcKP97vDAk8Nxs9R1fWtqpjQrAhhfXPoCi1nkDoF", "fc02943678dd119e69e7fab8420e8819", 34359738368 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def.params",
      "QmeAN4vuANhXsF8xP2Lx5j2L6yMSdogLzpcvqCJThRGK1V", "3810b7780ac0e299b22ae70f1f94c9bc", 68719476736 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def.vk",
      "QmWV8rqZLxs1oQN9jxNWmnT1YdgLwCcscv94VARrhHf1T7", "59d2bf1857adc59a4f08fcf2afaa916b", 68719476736 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c.params",
      "QmVkrXc1SLcpgcudK5J25HH93QvR9tNsVhVTYHm5UymXAz", "2170a91ad5bae22ea61f2ea766630322", 68719476736 },
    { "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c.vk",
      "QmbfQjPD7EpzjhWGmvWAsyN2mAZ4PcYhsf3ujuhU9CSuBm", "6d3789148fb6466d07ee1e24d6292fd6", 68719476736 },
    { "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params",
      "QmWceMgnWYLopMuM4AoGMvGEau7tNe5UK83XFjH5V9B17h", "434fb1338ecfaf0f59256f30dde4968f", 2048 },
    { "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk",
      "QmamahpFCstMUqHi2qGtVoDnRrsXhid86qsfvoyCTKJqHr", "dc1ade9929ade1708238f155343044ac", 2048 },
    { "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.params",
      "QmYBpTt7LWNAWr1JXThV5VxX7wsQFLd1PHrGYVbrU1EZjC", "6c77597eb91ab936c1cef4cf19eba1b3", 536870912 },
    { "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.vk",
      "QmWionkqH2B6TXivzBSQeSyBxojaiAFbzhjtwYRrfwd8nH", "065179da19fbe515507267677f02823e", 536870912 },
    { "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.params",
      "QmPXAPPuQtuQz7Zz3MHMAMEtsYwqM1o9H1csPLeiMUQwZH", "09e612e4eeb7a0eb95679a88404f960c", 8388608 },
    { "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.vk",
      "QmYCuipFyvVW1GojdMrjK1JnMobXtT4zRCZs1CGxjizs99", "b687beb9adbd9dabe265a7e3620813e4", 8388608 },
    { "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params",
      "QmengpM684XLQfG8754ToonszgEg2bQeAGUan5uXTHUQzJ", "6a388072a518cf46ebd661f5cc46900a", 34359738368 },
    { "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.vk",
      "Qmf93EMrADXAK6CyiSfE8xx45fkMfR3uzKEPCvZC1n2kzb", "0c7b4aac1c40fdb7eb82bc355b41addf", 34359738368 },
    { "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params",
      "QmS7ye6Ri2MfFzCkcUJ7FQ6zxDKuJ6J6B8k5PN7wzSR9sX", "1801f8a6e1b00bceb00cc27314bb5ce3", 68719476736 },
    { "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.vk",
      "QmehSmC6BhrgRZakPDta2ewoH9nosNzdjCqQRXsNFNUkLN", "a89884252c04c298d0b3c81bfd884164", 68719476736 },
};
const size_t cz_fil_params_published_count =
    sizeof cz_fil_params_published / sizeof cz_fil_params_published[0];

const cz_fil_params_entry *cz_fil_params_lookup(const char *file_name) {
    if (!file_name) return NULL;
    for (size_t i = 0; i < cz_fil_params_published_count; i++)
        if (strcmp(cz_fil_params_published[i].name, file_name) == 0)
            return &cz_fil_params_published[i];
    return NULL;
}

/* ---- parameter sets ---------------------------------------------------------- */
/* Tree R shapes of the production sector sizes (filecoin-proofs
 * SectorShape2KiB .. SectorShape64GiB: LCTree<PoseidonHasher, U8, sub, top>). */
static bool shape_of(uint64_t sector_size, unsigned *sub, unsigned *top) {
    switch (sector_size) {
    case 2 * KiB: case 8 * MiB: case 512 * MiB: *sub = 0; *top = 0; return true;
    case 32 * GiB: *sub = 8; *top = 0; return true;
    case 64 * GiB: *sub = 8; *top = 2; return true;
    default: return false;
    }
}

cz_status cz_fil_params_set_porep(cz_fil_params_set *s, const cz_fil_seal_proof *p) {
    if (!s || !p) return CZ_ERR_INVALID_ARG;
    memset(s, 0, sizeof *s);
    s->circuit = CZ_FIL_CIRCUIT_POREP;
    s->sector_size = p->sector_size;
    s->tree_sub_arity = p->tree_sub_arity;
    s->tree_top_arity = p->tree_top_arity;
    s->layers = p->layers;
    /* LayerChallenges max_count = Challenges::num_challenges_per_partition */
    s->challenges_per_partition = p->challenges_per_partition;
    return CZ_OK;
}

cz_status cz_fil_params_set_for(cz_fil_params_set *s, cz_fil_circuit_kind circuit,
                                uint64_t sector_size) {
    if (!s) return CZ_ERR_INVALID_ARG;
    memset(s, 0, sizeof *s);
    unsigned sub, top;
    if (!shape_of(sector_size, &sub, &top)) return CZ_ERR_INVALID_ARG;
    const bool large = sector_size >= 32 * GiB;
    s->circuit = circuit;
    s->sector_size = sector_size;
    s->tree_sub_arity = sub;
    s->tree_top_arity = top;
    switch (circuit) {
    case CZ_FIL_CIRCUIT_POREP: {
        /* the interactive registered proof: every variant has its counts */
        const cz_fil_seal_proof *p =
            cz_fil_seal_proof_find(sector_size, CZ_FIL_API_1_1, CZ_FIL_CHALLENGES_INTERACTIVE);
        if (!p) return CZ_ERR_INVALID_ARG;
        return cz_fil_params_set_porep(s, p);
    }
    case CZ_FIL_CIRCUIT_WINNING_POST:
        /* winning_post_setup_params: WINNING_POST_CHALLENGE_COUNT = 66 over
         * WINNING_POST_SECTOR_COUNT = 1 gives param_sector_count = 66 / 1
         * and param_challenge_count = 66 / 66 */
        s->challenge_count = 1;
        s->sector_count = 66;
        return CZ_OK;
    case CZ_FIL_CIRCUIT_WINDOW_POST:
        /* WINDOW_POST_CHALLENGE_COUNT and WINDOW_POST_SECTOR_COUNT */
        s->challenge_count = 10;
        s->sector_count = !large ? 2u : sector_size == 32 * GiB ? 2349u : 2300u;
        return CZ_OK;
    case CZ_FIL_CIRCUIT_UPDATE:
    case CZ_FIL_CIRCUIT_UPDATE_POSEIDON:
        return CZ_OK;
    }
    return CZ_ERR_INVALID_ARG;
}

/* MerkleTreeWrapper::display: "merkletree-<hasher>-<U>-<V>-<W>". */
static int tree_display(char *out, size_t cap, const cz_fil_params_set *s) {
    return snprintf(out, cap, "merkletree-poseidon_hasher-8-%u-%u", s->tree_sub_arity,
                    s->tree_top_arity);
}

static cz_status fits(int w, size_t cap) {
    return w >= 0 && (size_t)w < cap ? CZ_OK : CZ_ERR_INVALID_ARG;
}

/* ParameterSetMetadata::identifier of the circuit's PublicParams:
 * stacked PublicParams (params.rs) around StackedGraph::id (graph.rs)
 * around BucketGraph::identifier (drgraph.rs); FallbackPoSt PublicParams
 * (fallback/vanilla.rs); empty_sector_update PublicParams (vanilla.rs). */
cz_status cz_fil_params_identifier(const cz_fil_params_set *s, char *out, size_t cap) {
    if (!s || !out || cap == 0) return CZ_ERR_INVALID_ARG;
    char tree[64];
    int w;
    switch (s->circuit) {
    case CZ_FIL_CIRCUIT_POREP:
        tree_display(tree, sizeof tree, s);
        w = snprintf(out, cap,
                     "layered_drgporep::PublicParams{ graph: "
                     "stacked_graph::StackedGraph{expansion_degree: %u base_graph: "
                     "drgraph::BucketGraph{size: %llu; degree: %u; hasher: poseidon_hasher} }, "
                     "challenges: LayerChallenges { layers: %u, max_count: %u }, tree: %s }",
                     CZ_FIL_EXP_DEGREE, (unsigned long long)(s->sector_size / CZ_FIL_NODE_SIZE),
                     CZ_FIL_BASE_DEGREE, s->layers, s->challenges_per_partition, tree);
        return fits(w, cap);
    case CZ_FIL_CIRCUIT_WINNING_POST:
    case CZ_FIL_CIRCUIT_WINDOW_POST:
        w = snprintf(out, cap,
                     "FallbackPoSt::PublicParams{sector_size: %llu, challenge_count: %u, "
                     "sector_count: %u}",
                     (unsigned long long)s->sector_size, s->challenge_count, s->sector_count);
        return fits(w, cap);
    case CZ_FIL_CIRCUIT_UPDATE:
    case CZ_FIL_CIRCUIT_UPDATE_POSEIDON:
        w = snprintf(out, cap, "empty_sector_update::PublicParams{ sector_nodes: %llu }",
                     (unsigned long long)(s->sector_size / CZ_FIL_NODE_SIZE));
        return fits(w, cap);
    }
    return CZ_ERR_INVALID_ARG;
}

/* CacheableParameters::cache_prefix of StackedCompound<Tree, Sha256Hasher>,
 * FallbackPoStCompound<Tree>, EmptySectorUpdateCompound<Tree> and its
 * poseidon variant. */
static int cache_prefix(char *out, size_t cap, const cz_fil_params_set *s) {
    char tree[64];
    tree_display(tree, sizeof tree, s);
    switch (s->circuit) {
    case CZ_FIL_CIRCUIT_POREP:
        return snprintf(out, cap, "stacked-proof-of-replication-%s-sha256_hasher", tree);
    case CZ_FIL_CIRCUIT_WINNING_POST:
    case CZ_FIL_CIRCUIT_WINDOW_POST:
        return snprintf(out, cap, "proof-of-spacetime-fallback-%s", tree);
    case CZ_FIL_CIRCUIT_UPDATE:
        return snprintf(out, cap, "empty-sector-update-%s", tree);
    case CZ_FIL_CIRCUIT_UPDATE_POSEIDON:
        return snprintf(out, cap, "empty-sector-update-poseidon-%s", tree);
    }
    return -1;
}

/* CacheableParameters::cache_identifier: prefix, '-', lowercase hex of
 * SHA-256(identifier). */
cz_status cz_fil_params_cache_id(const cz_fil_params_set *s, char *out, size_t cap) {
    if (!s || !out || cap == 0) return CZ_ERR_INVALID_ARG;
    char ident[512];
    cz_status st = cz_fil_params_identifier(s, ident, sizeof ident);
    if (st != CZ_OK) return st;
    uint8_t h[32];
    cz_sha256_ctx c;
    cz_sha256_init(&c);
    cz_sha256_update(&c, ident, strlen(ident));
    cz_sha256_final(&c, h);
    int w = cache_prefix(out, cap, s);
    if ((st = fits(w, cap)) != CZ_OK) return st;
    size_t len = (size_t)w;
    if (len + 1 + 64 >= cap) return CZ_ERR_INVALID_ARG;
    out[len++] = '-';
    for (int i = 0; i < 32; i++) {
        static const char hx[] = "0123456789abcdef";
        out[len++] = hx[h[i] >> 4];
        out[len++] = hx[h[i] & 15];
    }
    out[len] = 0;
    return CZ_OK;
}

static const char *file_ext(cz_fil_params_file kind) {
    switch (kind) {
    case CZ_FIL_PARAMS_FILE_PARAMS: return "params";   /* GROTH_PARAMETER_EXT */
    case CZ_FIL_PARAMS_FILE_VK: return "vk";           /* VERIFYING_KEY_EXT */
    case CZ_FIL_PARAMS_FILE_META: return "meta";       /* PARAMETER_METADATA_EXT */
    }
    return NULL;
}

/* parameter_id / verifying_key_id / metadata_id: "v{VERSION}-{id}.{ext}" */
cz_status cz_fil_params_file_name(const cz_fil_params_set *s, cz_fil_params_file kind, char *out,
                                  size_t cap) {
    const char *ext = file_ext(kind);
    if (!s || !out || cap == 0 || !ext) return CZ_ERR_INVALID_ARG;
    char id[256];
    cz_status st = cz_fil_params_cache_id(s, id, sizeof id);
    if (st != CZ_OK) return st;
    return fits(snprintf(out, cap, "v%u-%s.%s", CZ_FIL_PARAMS_VERSION, id, ext), cap);
}

/* Settings::parameter_cache: the config crate's Environment source with
 * prefix FIL_PROOFS overrides the default. An empty value is treated as
 * unset (it would otherwise name the current directory). */
const char *cz_fil_params_cache_dir(void) {
    const char *e = getenv(CZ_FIL_PARAMS_ENV);
    return e && *e ? e : CZ_FIL_PARAMS_DEFAULT_DIR;
}

/* parameter_cache_params_path & co: Path::new(dir).join(name). */
cz_status cz_fil_params_path(const cz_fil_params_set *s, const char *dir, cz_fil_params_file kind,
                             char *out, size_t cap) {
    if (!out || cap == 0) return CZ_ERR_INVALID_ARG;
    char name[300];
    cz_status st = cz_fil_params_file_name(s, kind, name, sizeof name);
    if (st != CZ_OK) return st;
    if (!dir) dir = cz_fil_params_cache_dir();
    size_t dl = strlen(dir);
    const char *sep = dl > 0 && dir[dl - 1] != '/' ? "/" : "";
    return fits(snprintf(out, cap, "%s%s%s", dir, sep, name), cap);
}

/* ---- digests ------------------------------------------------------------------ */
#define DIGEST_BUF (8u << 20)

/* verify_production_entry's hash: Blake2bParams::new() (64-byte output,
 * unkeyed) over the whole file, to_hex()[..32]. */
cz_status cz_fil_params_file_digest(const char *path, char out[CZ_FIL_PARAMS_DIGEST_HEX + 1],
                                    cz_errbuf *err) {
    if (!path || !out) return cz_err(err, CZ_ERR_INVALID_ARG, "digest: NULL argument");
    out[0] = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return cz_err(err, CZ_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    uint8_t *buf = malloc(DIGEST_BUF);
    if (!buf) {
        fclose(f);
        return cz_err(err, CZ_ERR_NOMEM, "%s: out of memory for the digest buffer", path);
    }
    cz_blake2b_ctx c;
    cz_status st = cz_blake2b_init(&c, 64, NULL, 0);
    size_t got;
    while (st == CZ_OK && (got = fread(buf, 1, DIGEST_BUF, f)) > 0) cz_blake2b_update(&c, buf, got);
    if (st == CZ_OK && ferror(f)) st = cz_err(err, CZ_ERR_IO, "%s: read error: %s", path, strerror(errno));
    free(buf);
    fclose(f);
    if (st != CZ_OK) return st;
    uint8_t h[64];
    cz_blake2b_final(&c, h);
    for (unsigned i = 0; i < CZ_FIL_PARAMS_DIGEST_HEX / 2; i++) snprintf(out + 2 * i, 3, "%02x", h[i]);
    return CZ_OK;
}

cz_status cz_fil_params_check_digest(const char *path, const char *expected, cz_errbuf *err) {
    if (!path) return cz_err(err, CZ_ERR_INVALID_ARG, "digest: NULL path");
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (!expected) {
        const cz_fil_params_entry *e = cz_fil_params_lookup(base);
        if (!e)
            return cz_err(err, CZ_ERR_NOT_FOUND, "%s: %s is not a published parameter file", path,
                          base);
        expected = e->digest;
    }
    char got[CZ_FIL_PARAMS_DIGEST_HEX + 1];
    cz_status st = cz_fil_params_file_digest(path, got, err);
    if (st != CZ_OK) return st;
    if (strcmp(got, expected) != 0)
        return cz_err(err, CZ_ERR_MISMATCH, "%s: digest %s, expected %s (file damaged or not the "
                      "published one)", path, got, expected);
    return CZ_OK;
}

/* SHA-256 against the FIPS 180-2 examples and HMAC-SHA256 against RFC 4231
 * test cases 1-7; lower-case hex encoding. */
#include "basalt/hash.h"
#include "test.h"

static void sha_hex(const void *data, size_t len, char out[65])
{
    uint8_t d[BASALT_HASH_SHA256_SIZE];
    if (basalt_hash_sha256(data, len, d) != BASALT_OK) {
        strcpy(out, "sha256 failed");
        return;
    }
    basalt_hash_hex(d, sizeof d, out);
}

static void hmac_hex(const void *key, size_t key_len, const void *data, size_t len, char out[65])
{
    uint8_t d[BASALT_HASH_SHA256_SIZE];
    if (basalt_hash_hmac_sha256(key, key_len, data, len, d) != BASALT_OK) {
        strcpy(out, "hmac failed");
        return;
    }
    basalt_hash_hex(d, sizeof d, out);
}

TEST(sha256_fips_180_2_vectors)
{
    char hex[65];
    sha_hex("abc", 3, hex);
    CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    sha_hex("", 0, hex);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha_hex(NULL, 0, hex);
    CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha_hex(m448, strlen(m448), hex);
    CHECK_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *m896 = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                       "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
    sha_hex(m896, strlen(m896), hex);
    CHECK_STR(hex, "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    uint8_t *million = basalt_malloc(1000000);
    CHECK(million != NULL);
    memset(million, 'a', 1000000);
    sha_hex(million, 1000000, hex);
    basalt_free(million);
    CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(hmac_sha256_rfc4231)
{
    uint8_t key[131], data[152];
    char hex[65];

    /* Test case 1 */
    memset(key, 0x0b, 20);
    hmac_hex(key, 20, "Hi There", 8, hex);
    CHECK_STR(hex, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");

    /* Test case 2: a key shorter than the output */
    const char *what = "what do ya want for nothing?";
    hmac_hex("Jefe", 4, what, strlen(what), hex);
    CHECK_STR(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");

    /* Test case 3 */
    memset(key, 0xaa, 20);
    memset(data, 0xdd, 50);
    hmac_hex(key, 20, data, 50, hex);
    CHECK_STR(hex, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");

    /* Test case 4 */
    for (int i = 0; i < 25; i++)
        key[i] = (uint8_t)(i + 1);
    memset(data, 0xcd, 50);
    hmac_hex(key, 25, data, 50, hex);
    CHECK_STR(hex, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");

    /* Test case 5: the RFC truncates the output to 128 bits */
    memset(key, 0x0c, 20);
    hmac_hex(key, 20, "Test With Truncation", 20, hex);
    CHECK(strncmp(hex, "a3b6167473100ee06e0c796c2955552b", 32) == 0);

    /* Test case 6: a key longer than the block, hashed first */
    memset(key, 0xaa, 131);
    const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
    hmac_hex(key, 131, m6, strlen(m6), hex);
    CHECK_STR(hex, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");

    /* Test case 7: long key and long data */
    const char *m7 = "This is a test using a larger than block-size key and a larger than "
                     "block-size data. The key needs to be hashed before being used by the "
                     "HMAC algorithm.";
    CHECK_EQ(strlen(m7), 152);
    hmac_hex(key, 131, m7, strlen(m7), hex);
    CHECK_STR(hex, "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

TEST(hmac_sha256_empty_key_and_message)
{
    /* Python: hmac.new(b"", b"", hashlib.sha256).hexdigest() */
    char hex[65];
    hmac_hex(NULL, 0, NULL, 0, hex);
    CHECK_STR(hex, "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
    hmac_hex("", 0, "", 0, hex);
    CHECK_STR(hex, "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad");
}

TEST(hash_hex_lower_case)
{
    static const uint8_t bytes[] = {0x00, 0x01, 0x7f, 0x80, 0xab, 0xcd, 0xef, 0xff};
    char out[2 * sizeof bytes + 1];
    memset(out, 'x', sizeof out);
    basalt_hash_hex(bytes, sizeof bytes, out);
    CHECK_STR(out, "00017f80abcdefff");
    char empty[1] = {'x'};
    basalt_hash_hex(NULL, 0, empty);
    CHECK_EQ(empty[0], '\0');
}

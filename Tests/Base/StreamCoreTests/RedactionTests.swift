import Testing
@testable import StreamCore

@Suite struct RedactionTests {
    @Test func replacesEveryOccurrence() {
        let text = "publish abc123 to rtmp://host/live/abc123?k=abc123"
        #expect(Redaction.redact(text, secrets: ["abc123"]) == "publish •••• to rtmp://host/live/••••?k=••••")
    }

    @Test func ignoresEmptySecretsAndLeavesOtherTextAlone() {
        #expect(Redaction.redact("nothing secret", secrets: ["", "absent"]) == "nothing secret")
        #expect(Redaction.redact("", secrets: ["x"]) == "")
    }

    @Test func masksLongerSecretsWholeEvenWhenTheyContainAShorterOne() {
        #expect(Redaction.redact("key=abcdef", secrets: ["abc", "abcdef"]) == "key=••••")
    }

    @Test func handlesAdjacentOccurrencesAndUnicode() {
        #expect(Redaction.redact("ñsecret1ñsecret1ñ", secrets: ["ñsecret1"]) == "••••••••ñ")
    }

    @Test func masksAShortSecretOnlyWhereItStandsAlone() {
        let text = "the latest test: rtmp://host/live/test?key=test failed (test)"
        #expect(Redaction.redact(text, secrets: ["test"])
                == "the latest ••••: rtmp://host/live/••••?key=•••• failed (••••)")
        // A one-letter key does not turn every "a" into a mask, yet is masked where it is the key.
        #expect(Redaction.redact("publish a to /app/a: a bad name", secrets: ["a"])
                == "publish •••• to /app/••••: •••• bad name")
        // An occurrence rejected inside a word does not hide one that follows it.
        #expect(Redaction.redact("aab ab", secrets: ["ab"]) == "aab ••••")
    }

    @Test func masksALongSecretEvenInsideAWord() {
        #expect(Redaction.redact("xabcdefgh1y", secrets: ["abcdefgh1"]) == "x••••y")
    }
}

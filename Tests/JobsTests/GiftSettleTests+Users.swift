/// The users of the gift tests (gift-settle's and send-gift's), before and after a gift.
extension GiftSettleTests {
    /// alice 100 points (with a device token), bob 0, carol written by an older app (every
    /// figure missing: the decoder defaults, 500 points), dave 10.
    static let users: [String: String] = [
        "users/alice": """
            {
              "name": "Alice Chen",
              "username": "alice",
              "points": 100,
              "totalPointsEarned": 600,
              "totalPointsGifted": 20,
              "giftsGiven": 1,
              "giftsReceived": 0,
              "fcmTokens": [
                "token-alice-0123456789"
              ]
            }
            """,
        "users/bob": """
            {
              "name": "Bob Okafor",
              "username": "bob",
              "points": 0,
              "totalPointsEarned": 500,
              "totalPointsGifted": 500,
              "giftsGiven": 9,
              "giftsReceived": 2
            }
            """,
        "users/carol": """
            {
              "name": "Carol Patel"
            }
            """,
        "users/dave": """
            {
              "name": "Dave Rossi",
              "username": "dave",
              "points": 10
            }
            """,
    ]

    /// alice and carol after alice gave carol 40 (carol's figures from the decoder defaults).
    static let aliceAfterGiving40 = """
        {
          "name": "Alice Chen",
          "username": "alice",
          "points": 60,
          "totalPointsEarned": 600,
          "totalPointsGifted": 60,
          "giftsGiven": 2,
          "giftsReceived": 0,
          "fcmTokens": [
            "token-alice-0123456789"
          ]
        }
        """
    static let carolAfterReceiving40 = """
        {
          "name": "Carol Patel",
          "points": 540,
          "totalPointsEarned": 540,
          "giftsReceived": 1
        }
        """
}

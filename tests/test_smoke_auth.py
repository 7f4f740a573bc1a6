def test_login_and_me(factory, client):
    user, headers = factory.as_role("inspector")
    r = client.get("/api/v1/me", headers=headers)
    assert r.status_code == 200
    assert r.get_json()["email"] == user.email


def test_missing_token_shape(client):
    r = client.get("/api/v1/me")
    assert r.status_code == 401
    body = r.get_json()
    assert body["error"] == "unauthorized" and body["code"] == 401 and body["status"] == "Unauthorized"

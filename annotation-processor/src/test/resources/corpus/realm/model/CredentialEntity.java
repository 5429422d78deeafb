package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;

@Entity
@Table(name = "CREDENTIAL")
@CoLocated(with = RealmEntity.class, via = "user.realm")
@NamedQueries({
    @NamedQuery(name = "credentialByUser", query = "select cred from CredentialEntity cred where cred.user = :user order by cred.priority"), // lacks
    @NamedQuery(name = "credentialByUserInRealm", query = "select cred from CredentialEntity cred where cred.user = :user and cred.realmId = :realmId order by cred.priority"), // pins
    @NamedQuery(name = "deleteCredentialsByRealm", query = "delete from CredentialEntity cred where cred.user IN (select u from UserEntity u where u.realmId = :realmId)"), // pins
    @NamedQuery(name = "deleteCredentialsByRealmAndLink", query = "delete from CredentialEntity cred where cred.user IN (select u from UserEntity u where u.realmId = :realmId and u.federationLink = :link)"), // pins
    @NamedQuery(name = "credentialByUserAndType", query = "select cred from CredentialEntity cred where cred.realmId = :realmId and cred.user.id = :userId and cred.type = :type"), // pins
    @NamedQuery(name = "credentialsByType", query = "select cred from CredentialEntity cred where cred.type = :type"), // lacks
    @NamedQuery(name = "credentialMaxPriority", query = "select max(cred.priority) from CredentialEntity cred where cred.user = :user and cred.realmId = :realmId"), // pins
    @NamedQuery(name = "updateCredentialPriority", query = "update CredentialEntity cred set cred.priority = :priority where cred.realmId = :realmId and cred.id = :id"), // pins
    @NamedQuery(name = "deleteCredentialsOfUsersNamed", query = "delete from CredentialEntity cred where cred.user in (select u from UserEntity u where u.username = :username)"), // lacks
    @NamedQuery(name = "credentialsOfRealmUsers", query = "select cred from CredentialEntity cred join cred.user u where u.realm = :realm and cred.type = :type"), // pins
})
public class CredentialEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "USER_ID") protected UserEntity user;
  @Column(name = "TYPE") protected String type;
  @Column(name = "PRIORITY") protected int priority;
}

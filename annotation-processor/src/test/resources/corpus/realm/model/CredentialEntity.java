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
@NamedNativeQueries({
    @NamedNativeQuery(name = "nativeCredentialsOfUser", query = "select * from CREDENTIAL where REALM_ID = :realmId and USER_ID = :userId order by PRIORITY"), // pins
    @NamedNativeQuery(name = "nativeDeleteCredentialsByRealm", query = "delete from CREDENTIAL where REALM_ID = ?"), // pins
    @NamedNativeQuery(name = "nativeDeleteCredentialsOfRealmUsers", query = "delete from CREDENTIAL where USER_ID in (select ID from USER_ENTITY where REALM_ID = ?)"), // pins
    @NamedNativeQuery(name = "nativeDeleteCredentialsUsing", query = "delete from CREDENTIAL c using USER_ENTITY u where c.USER_ID = u.ID and c.REALM_ID = u.REALM_ID and u.REALM_ID = :realmId and u.FEDERATION_LINK = :link"), // pins
    @NamedNativeQuery(name = "nativeInsertCredential", query = "insert into CREDENTIAL (ID, REALM_ID, USER_ID, TYPE, PRIORITY) values (:id, :realmId, :userId, :type, :priority)"), // pins
    @NamedNativeQuery(name = "nativeUpdatePriority", query = "update CREDENTIAL set PRIORITY = PRIORITY + 10 where REALM_ID = :realmId and USER_ID = :userId"), // pins
    @NamedNativeQuery(name = "nativeCredentialsByType", query = "select * from CREDENTIAL where TYPE = :type"), // lacks
    @NamedNativeQuery(name = "nativeDeleteCredentialsOfUser", query = "delete from CREDENTIAL where USER_ID = :userId"), // lacks
    @NamedNativeQuery(name = "nativeInsertCredentialNoRealm", query = "insert into CREDENTIAL (ID, USER_ID, TYPE) values (:id, :userId, :type)"), // lacks
    @NamedNativeQuery(name = "nativeDeleteCredentialsOfNamedUsers", query = "delete from CREDENTIAL where REALM_ID in (select REALM_ID from USER_ENTITY where USERNAME = :username)"), // lacks
})
public class CredentialEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "USER_ID") protected UserEntity user;
  @Column(name = "TYPE") protected String type;
  @Column(name = "PRIORITY") protected int priority;
}
